import Foundation
import NetTapTestSupport
import Testing

/// `nettap import`: HAR (from any tool) and NDJSON, all or nothing. A malformed file is refused
/// with the entry and field (or line and column) named, exit status 1, and the store unchanged.
@Suite struct ImportCommandTests {
    /// A HAR entry as a browser writes it (no NetTap fields).
    static func entry(_ url: String, status: String = "200", started: String = "2026-05-28T14:00:00.000Z",
                      headers: String = #"[{"name":"Accept","value":"*/*"}]"#) -> String {
        """
        {"startedDateTime":"\(started)","time":12.5,"request":{"method":"GET","url":"\(url)","httpVersion":"HTTP/1.1","cookies":[],"headers":\(headers),"queryString":[],"headersSize":-1,"bodySize":0},"response":{"status":\(status),"statusText":"OK","httpVersion":"HTTP/1.1","cookies":[],"headers":[{"name":"Content-Type","value":"text/plain"}],"content":{"size":2,"mimeType":"text/plain","text":"ok"},"redirectURL":"","headersSize":-1,"bodySize":2},"cache":{},"timings":{"send":0.5,"wait":10,"receive":2}}
        """
    }

    static func har(_ entries: [String]) -> String {
        #"{"log":{"version":"1.2","creator":{"name":"Browser","version":"1"},"entries":["# + "\n"
            + entries.joined(separator: ",\n") + "\n]}}\n"
    }

    /// Malformed files and what the message must name.
    static let malformed: [(name: String, text: String, message: [String])] = [
        ("status-string", har([entry("http://a.test/1"), entry("http://a.test/2", status: #""200""#)]),
         ["entry 1: response.status: expected", "(entry at line 3)"]),
        ("missing-url", har([entry("http://a.test/1").replacingOccurrences(of: #""url":"http://a.test/1","#, with: "")]),
         ["entry 0: request.url: missing"]),
        ("no-zone", har([entry("http://a.test/1"), entry("http://a.test/2"), entry("http://a.test/3", started: "2026-05-28T14:00:00")]),
         ["entry 2: startedDateTime: expected an ISO 8601 date and time with a time zone"]),
        ("header-number", har([entry("http://a.test/1", headers: #"[{"name":"Accept","value":7}]"#)]),
         ["entry 0: request.headers[0].value: expected a string, found number"]),
        ("truncated", String(har([entry("http://a.test/1"), entry("http://a.test/2")]).dropLast(20)),
         ["line 3, column"]),
        ("no-entries", #"{"log":{"version":"1.2","creator":{"name":"x","version":"1"}}}"#,
         ["log.entries: missing"]),
    ]

    @Test(arguments: malformed.indices)
    func malformedHARLeavesTheStoreUnchanged(index: Int) throws {
        let (name, text, message) = Self.malformed[index]
        let directory = try TemporaryDirectory()
        let start = Date(timeIntervalSince1970: 1_780_000_000)
        let store = try SampleExchange.store(
            [SampleExchange(id: SampleExchange.id(1), startedAt: start, url: "http://kept.test/1"),
             SampleExchange(id: SampleExchange.id(2), startedAt: start + 1, url: "http://kept.test/2")],
            in: directory)
        let before = try Nettap.count(store: store)
        let file = directory.file("\(name).har")
        try Data(text.utf8).write(to: file)

        let result = try Nettap.run(["import", "--store", store, file.path])
        #expect(result.status == .exited(1), "\(name): \(result)")
        #expect(result.stdout.isEmpty, "\(name)")
        #expect(result.stderr.hasPrefix("nettap import: error: \(file.path): "), "\(name): \(result.stderr)")
        for fragment in message {
            #expect(result.stderr.contains(fragment), "\(name): \(result.stderr)")
        }
        #expect(result.stderr.hasSuffix("; nothing was imported\n"), "\(name): \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
        #expect(try Nettap.count(store: store) == before, "\(name)")
        #expect(try Nettap.listIDs(["--store", store]) == [SampleExchange.id(2), SampleExchange.id(1)])
    }

    @Test func malformedFileCreatesNoStore() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("bad.har")
        try Data(Self.har([Self.entry("http://a.test/1", status: "true")]).utf8).write(to: file)
        let store = directory.file("new.sqlite").path
        let result = try Nettap.run(["import", "--store", store, file.path])
        #expect(result.status == .exited(1))
        #expect(result.stderr.contains("entry 0: response.status"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: store))

        let missing = try Nettap.run(["import", "--store", store, directory.file("absent.har").path])
        #expect(missing.status == .exited(1))
        #expect(missing.stderr == "nettap import: error: cannot read '\(directory.file("absent.har").path)': no such readable file\n")
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    @Test func foreignHARGetsTheGivenSession() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("browser.har")
        try Data(Self.har([Self.entry("http://a.test/1"), Self.entry("http://a.test/2", started: "2026-05-28T16:00:01.5+02:00")]).utf8)
            .write(to: file)
        let store = directory.file("store.sqlite").path
        let result = try Nettap.succeed(["import", "--store", store, "--session", "run-42", file.path])
        #expect(result.stdout == "Imported 2 exchanges from \(file.path) into \(store).")
        let page = try Nettap.succeed(["list", "--store", store, "--json", "--session", "run-42", "--path", "import"]).jsonObject()
        let rows = try #require(page["exchanges"] as? [[String: Any]])
        #expect(rows.compactMap { $0["url"] as? String } == ["http://a.test/2", "http://a.test/1"])
        #expect(rows.compactMap { $0["startedAt"] as? String } == ["2026-05-28T14:00:01.500Z", "2026-05-28T14:00:00.000Z"])
        #expect(rows.compactMap { $0["duration"] as? Double } == [0.0125, 0.0125])
    }

    @Test func ndjsonImportAndItsErrors() throws {
        let directory = try TemporaryDirectory()
        let start = Date(timeIntervalSince1970: 1_780_000_000)
        let store = try SampleExchange.store(
            [SampleExchange(id: SampleExchange.id(1), startedAt: start, url: "http://kept.test/1")], in: directory)

        // Line 2 lacks its request; line 3 is not JSON.
        let good = String(decoding: try SampleExchange.ndjson([SampleExchange(id: SampleExchange.id(2), startedAt: start, url: "http://x.test/")]), as: UTF8.self)
        let missing = good.replacingOccurrences(of: SampleExchange.id(2), with: SampleExchange.id(3))
            .replacingOccurrences(of: #""request":"#, with: #""requestX":"#)
        for (name, text, fragment) in [
            ("missing.ndjson", good + missing, "line 2: request: missing"),
            ("syntax.jsonl", good + "\n" + #"{"id": ]"# + "\n", "line 3, column 8:"),
        ] {
            let file = directory.file(name)
            try Data(text.utf8).write(to: file)
            let result = try Nettap.run(["import", "--store", store, file.path])
            #expect(result.status == .exited(1), "\(name): \(result)")
            #expect(result.stderr.contains("\(file.path): \(fragment)"), "\(name): \(result.stderr)")
            #expect(try Nettap.count(store: store) == 1, "\(name)")
        }

        // The same exchanges twice: the second import is refused whole.
        let file = directory.file("twice.ndjson")
        try SampleExchange.ndjson([
            SampleExchange(id: SampleExchange.id(5), startedAt: start, url: "http://x.test/5"),
            SampleExchange(id: SampleExchange.id(1), startedAt: start, url: "http://kept.test/1"),
        ]).write(to: file)
        let duplicate = try Nettap.run(["import", "--store", store, file.path])
        #expect(duplicate.status == .exited(1))
        #expect(duplicate.stderr.contains(
            "\(file.path): exchange #2 (id \(SampleExchange.id(1))): an exchange with this id is already stored; nothing was imported"),
            "\(duplicate)")
        #expect(try Nettap.listIDs(["--store", store]) == [SampleExchange.id(1)])
    }
}
