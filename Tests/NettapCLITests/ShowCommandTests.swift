import Foundation
import NetTapTestSupport
import Testing

/// `nettap show ID`: headers, bodies by content type with their notes, timing, redirects, errors;
/// `--json` gives the exchange JSON; IDs by unique prefix.
@Suite struct ShowCommandTests {
    /// The ID of the exchange of `traffic` made through `via` to `target`.
    static func id(_ traffic: CapturedTraffic, via: String, method: String = "GET", target: String) throws -> String {
        let page = try Nettap.succeed(["list", "--store", traffic.store, "--json", "--limit", "100"]).jsonObject()
        let rows = try #require(page["exchanges"] as? [[String: Any]])
        let row = try #require(rows.first {
            $0["capturePath"] as? String == via && $0["method"] as? String == method
                && $0["url"] as? String == traffic.server.url(target).absoluteString
        }, "no \(via) \(method) \(target) in \(rows)")
        return try #require(row["id"] as? String)
    }

    @Test(arguments: ["protocol", "session"])
    func jsonRequestAndResponseBodiesAreIndented(via: String) throws {
        let traffic = try CapturedTraffic()
        let id = try Self.id(traffic, via: via, method: "POST", target: "/echo")
        let result = try Nettap.succeed(["show", "--store", traffic.store, String(id.suffix(8))])
        let lines = result.lines
        #expect(lines.first == "Exchange  \(id)")
        #expect(lines.contains("Status    200 OK"))
        #expect(lines.contains("Captured  \(via) path, data task"))
        #expect(lines.contains("> POST \(traffic.server.url("/echo").absoluteString)"))
        #expect(lines.contains("> Content-Type: application/json"))
        #expect(lines.contains("> X-Trace: cli-test"))
        let heading = try #require(lines.firstIndex(of: "Request body (\(CapturedTraffic.jsonBody.utf8.count) bytes, application/json)"),
                                   "\(result)")
        #expect(Array(lines[(heading + 1)...].prefix(8)) == [
            "{", #"  "name": "café","#, #"  "count": 2,"#, #"  "tags": ["#, #"    "a","#, #"    "b""#, "  ]", "}",
        ])
        let response = try #require(lines.firstIndex { $0.hasPrefix("Response body (") && $0.hasSuffix(", application/json)") },
                                    "\(result)")
        // The echo document, indented: members one per line, two spaces per level.
        #expect(lines[response + 1] == "{")
        #expect(lines.contains(#"  "method": "POST","#))
        #expect(lines.contains("Timing"))
        #expect(lines.contains { $0.hasPrefix("  total ") })
        #expect(result.stderr.isEmpty)
    }

    @Test func binaryBodiesAreHexDumpExcerpts() throws {
        let traffic = try CapturedTraffic()
        let upload = try Nettap.succeed(["show", "--store", traffic.store, try Self.id(traffic, via: "session", method: "POST", target: "/echo/raw")])
        let heading = try #require(upload.lines.firstIndex(of: "Request body (256 bytes, application/octet-stream)"), "\(upload)")
        #expect(upload.lines[heading + 1] == "00000000  00 01 02 03 04 05 06 07  08 09 0a 0b 0c 0d 0e 0f  |................|")
        #expect(upload.lines[heading + 3] == "00000020  20 21 22 23 24 25 26 27  28 29 2a 2b 2c 2d 2e 2f  | !\"#$%&'()*+,-./|")
        #expect(upload.lines[heading + 16] == "000000f0  f0 f1 f2 f3 f4 f5 f6 f7  f8 f9 fa fb fc fd fe ff  |................|")
        #expect(upload.lines[heading + 17] == "")

        let download = try Nettap.succeed(["show", "--store", traffic.store, try Self.id(traffic, via: "protocol", target: "/bytes/300?seed=7")])
        let body = try #require(download.lines.firstIndex(of: "Response body (300 bytes, application/octet-stream)"), "\(download)")
        let dump = download.lines[(body + 1)...].prefix { $0.hasPrefix("0000") }
        #expect(dump.count == 16)
        let expected = ScenarioBytes.bytes(count: 300, seed: 7)
        let firstRow = expected.prefix(16).map { String(format: "%02x", $0) }
        #expect(dump.first?.hasPrefix("00000000  " + firstRow[0..<8].joined(separator: " ") + "  " + firstRow[8...].joined(separator: " ")) == true)
        #expect(download.lines[body + 17] == "[44 more bytes not shown]")
    }

    @Test func redirectsHeadersAndErrorsAreShown() throws {
        let traffic = try CapturedTraffic()
        let redirectID = try Self.id(traffic, via: "session", target: "/redirect/302?to=/text/64")
        let redirect = try Nettap.succeed(["show", "--store", traffic.store, redirectID])
        let stored = try Nettap.succeed(["show", "--store", traffic.store, "--json", redirectID]).jsonObject()
        let storedHop = try #require((stored["redirects"] as? [[String: Any]])?.first, "\(stored)")
        let hops = try #require(redirect.lines.firstIndex(of: "Redirects"), "\(redirect)")
        // Linux URLSession does not tell the redirect's status; the line says 3xx then.
        let status = (storedHop["statusCode"] as? Int).map(String.init) ?? "3xx"
        #expect(redirect.lines[hops + 1] == "  \(status)  \(traffic.server.url("/redirect/302?to=/text/64").absoluteString) -> \(try #require(storedHop["location"] as? String))")
        #expect((storedHop["location"] as? String)?.hasSuffix("/text/64") == true)
        #expect(redirect.lines.contains("< from \(traffic.server.url("/text/64").absoluteString)"))
        #expect(redirect.lines.contains("Response body (64 bytes, text/plain; charset=utf-8)"))

        let headersID = try Self.id(traffic, via: "protocol", target: "/headers")
        let headers = try Nettap.succeed(["show", "--store", traffic.store, headersID])
        #expect(headers.lines.contains("< X-NetTap-Scenario: headers"))
        #expect(headers.lines.contains("< X-Mixed-Case-Header: MixedValue"))
        #expect(headers.lines.contains("< Cache-Control: no-store"))
        // Every stored response field, in its order.
        let exchange = try Nettap.succeed(["show", "--store", traffic.store, "--json", headersID]).jsonObject()
        let fields = try #require((exchange["response"] as? [String: Any])?["headers"] as? [[String: String]])
        #expect(headers.lines.filter { $0.hasPrefix("< ") && !$0.hasPrefix("< 200") } == fields.map { "< \($0["name"] ?? ""): \($0["value"] ?? "")" })
        #expect(fields.contains { $0["name"] == "Set-Cookie" })

        let dropped = try Nettap.succeed(["show", "--store", traffic.store, try Self.id(traffic, via: "session", target: "/drop")])
        #expect(dropped.lines.contains { $0.hasPrefix("Error     http-none: ") }, "\(dropped)")
        #expect(!dropped.lines.contains { $0.hasPrefix("< ") })
    }

    @Test func jsonIsTheExchangeJSON() throws {
        let traffic = try CapturedTraffic()
        let id = try Self.id(traffic, via: "protocol", method: "POST", target: "/echo")
        let exchange = try Nettap.succeed(["show", "--store", traffic.store, "--json", id]).jsonObject()
        #expect(exchange["id"] as? String == id)
        #expect(exchange["capturePath"] as? String == "protocol")
        let request = try #require(exchange["request"] as? [String: Any])
        #expect(request["method"] as? String == "POST")
        #expect(request["bodySize"] as? Int == CapturedTraffic.jsonBody.utf8.count)
        let body = try #require(request["body"] as? [String: Any])
        #expect(body["encoding"] as? String == "utf8")
        #expect(body["data"] as? String == CapturedTraffic.jsonBody)
        let response = try #require(exchange["response"] as? [String: Any])
        #expect(response["status"] as? Int == 200)
        // Every key of the contract is present.
        #expect(Set(exchange.keys) == [
            "id", "sessionId", "startedAt", "duration", "request", "response", "error", "redirects", "timing", "labels",
            "capturePath", "taskKind", "modifications",
        ])
    }

    static let start = Date(timeIntervalSince1970: 1_780_000_000)

    @Test func bodyNotesAndTextBodies() throws {
        let directory = try TemporaryDirectory()
        var truncated = SampleExchange(id: SampleExchange.id(1), startedAt: Self.start, url: "http://api.test/log")
        truncated.responseBody = .init(text: "first line\nsecond", size: 4000, contentType: "text/plain", truncated: true)
        var redacted = SampleExchange(id: SampleExchange.id(2), startedAt: Self.start + 1, method: "POST", url: "http://api.test/login")
        redacted.requestBody = .init(text: #"{"user":"ada","password":"REDACTED"}"#, size: 35, contentType: "application/json", redacted: true)
        var unavailable = SampleExchange(id: SampleExchange.id(3), startedAt: Self.start + 2, url: "http://api.test/stream")
        unavailable.responseBody = .init(text: "", size: 1234, contentType: "video/mp4", unavailable: "stream body not exposed")
        var untyped = SampleExchange(id: SampleExchange.id(4), startedAt: Self.start + 3, url: "http://api.test/untyped")
        untyped.responseBody = .init(text: #"[1,{"a":null}]"#, size: 14)
        var control = SampleExchange(id: SampleExchange.id(5), startedAt: Self.start + 4, url: "http://api.test/ansi")
        control.responseBody = .init(text: "\u{1B}[31mred", size: 8, contentType: "text/plain")
        var crlf = SampleExchange(id: SampleExchange.id(6), startedAt: Self.start + 5, url: "http://api.test/crlf")
        crlf.responseBody = .init(text: "one\r\ntwo\r\n", size: 10, contentType: "text/plain")
        let store = try SampleExchange.store([truncated, redacted, unavailable, untyped, control, crlf], in: directory)

        let first = try Nettap.succeed(["show", "--store", store, "00000000-0000-4000-8000-000000000001"]).lines
        let heading = try #require(first.firstIndex(of: "Response body (4000 bytes, text/plain)"))
        #expect(Array(first[(heading + 1)...].prefix(3)) == ["[truncated: 17 of 4000 bytes captured]", "first line", "second"])
        #expect(first.contains("Started   2026-05-28 20:26:40.000 +00:00  (2026-05-28T20:26:40.000Z)"))

        let second = try Nettap.succeed(["show", "--store", store, "00000000-0000-4000-8000-000000000002"]).lines
        let request = try #require(second.firstIndex(of: "Request body (35 bytes, application/json)"))
        #expect(second[request + 1] == "[redacted: secrets in this body were replaced before it was stored]")
        #expect(Array(second[(request + 2)...].prefix(4)) == ["{", #"  "user": "ada","#, #"  "password": "REDACTED""#, "}"])

        let third = try Nettap.succeed(["show", "--store", store, "00000000-0000-4000-8000-000000000003"]).lines
        let body = try #require(third.firstIndex(of: "Response body (1234 bytes, video/mp4)"))
        #expect(third[body + 1] == "[unavailable: stream body not exposed]")
        #expect(third.count == body + 2)

        let fourth = try Nettap.succeed(["show", "--store", store, "00000000-0000-4000-8000-000000000004"]).lines
        let json = try #require(fourth.firstIndex(of: "Response body (14 bytes)"))
        #expect(Array(fourth[(json + 1)...]) == ["[", "  1,", "  {", #"    "a": null"#, "  }", "]"])

        // Control characters would act on the terminal: such text is dumped, not printed.
        let fifth = try Nettap.succeed(["show", "--store", store, "00000000-0000-4000-8000-000000000005"]).lines
        let ansi = try #require(fifth.firstIndex(of: "Response body (8 bytes, text/plain)"))
        #expect(fifth[ansi + 1] == "00000000  1b 5b 33 31 6d 72 65 64                           |.[31mred|")

        // CRLF line ends are lines.
        let sixth = try Nettap.succeed(["show", "--store", store, "00000000-0000-4000-8000-000000000006"]).lines
        let lines = try #require(sixth.firstIndex(of: "Response body (10 bytes, text/plain)"))
        #expect(Array(sixth[(lines + 1)...]) == ["one", "two"])
    }

    @Test func idsByUniquePrefix() throws {
        let directory = try TemporaryDirectory()
        let exchanges = [
            SampleExchange(id: SampleExchange.id(1, prefix: "ABCD1111"), startedAt: Self.start, url: "http://api.test/one"),
            SampleExchange(id: SampleExchange.id(2, prefix: "ABCD2222"), startedAt: Self.start + 1, url: "http://api.test/two"),
        ]
        let store = try SampleExchange.store(exchanges, in: directory)

        // A start, the end that 'nettap list' prints, the whole ID.
        for prefix in ["abcd1", "ABCD2222", "00000001", "8000-000000000002", "ABCD2222-0000-4000-8000-000000000002"] {
            let result = try Nettap.succeed(["show", "--store", store, prefix])
            let expected = prefix.lowercased().hasPrefix("abcd1") || prefix.hasSuffix("1") ? "ABCD1111-0000-4000-8000-000000000001" : "ABCD2222-0000-4000-8000-000000000002"
            #expect(result.lines.first == "Exchange  \(expected)", "\(prefix)")
        }

        let ambiguous = try Nettap.run(["show", "--store", store, "ABCD"])
        #expect(ambiguous.status == .exited(1))
        #expect(ambiguous.stderr.contains(#"ID "ABCD" matches 2 exchanges"#), "\(ambiguous)")
        #expect(ambiguous.stdout.isEmpty)

        let missing = try Nettap.run(["show", "--store", store, "FFFF"])
        #expect(missing.status == .exited(1))
        #expect(missing.stderr == "nettap show: error: no exchange with ID FFFF in \(store)\n")
    }

    /// A start time with a fraction of a millisecond past the half: the text views all cut it down
    /// to .250 (show's UTC form too, which had printed the JSON's rounded .251 beside a local .250),
    /// so that a time copied from them into `--since` still selects the exchange.
    @Test func textViewsAgreeToTheMillisecondAndReadBackThroughSince() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("fraction.har")
        try Data(ImportCommandTests.har([ImportCommandTests.entry("http://api.test/one", started: "2026-05-28T20:26:40.2506Z")]).utf8)
            .write(to: file)
        let store = directory.file("fraction.sqlite").path
        try Nettap.succeed(["import", "--store", store, file.path])
        let id = try #require(try Nettap.listIDs(["--store", store]).first)

        let show = try Nettap.succeed(["show", "--store", store, id]).lines
        #expect(show.contains("Started   2026-05-28 20:26:40.250 +00:00  (2026-05-28T20:26:40.250Z)"), "\(show)")
        let list = try Nettap.succeed(["list", "--store", store]).lines
        #expect(list.count == 2 && list[1].hasPrefix("2026-05-28 20:26:40.250  GET"), "\(list)")
        let stats = try Nettap.succeed(["stats", "--store", store]).lines
        #expect(stats.contains("Oldest     2026-05-28 20:26:40.250"), "\(stats)")
        #expect(try Nettap.listIDs(["--store", store, "--since", "2026-05-28 20:26:40.250"]) == [id])
        #expect(try Nettap.listIDs(["--store", store, "--since", "2026-05-28 20:26:40.251"]).isEmpty)
    }
}
