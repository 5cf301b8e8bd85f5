import Foundation
import NetTapCore
import Testing
@testable import NetTapExport

/// Commands from `CurlExporter` run through `/bin/sh` and the real curl against a throwaway
/// python server on 127.0.0.1 that records each request; method, path, headers and body bytes
/// must arrive as captured.
@Suite struct CurlExporterTests {
    /// Answers every request with 200 "ok" and prints it as one JSON line: method, path, headers
    /// (raw bytes, decoded as UTF-8) and the body in base64. Prints its port first.
    static let recorder = #"""
        import base64, http.server, json, sys
        class Recorder(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def record(self, send_body):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = [[k, v.encode("latin-1").decode("utf-8", "replace")] for k, v in self.headers.raw_items()]
                print(json.dumps({"method": self.command, "path": self.path, "headers": headers,
                                  "body": base64.b64encode(body).decode()}), flush=True)
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                if send_body:
                    self.wfile.write(b"ok")
            def do_HEAD(self):
                self.record(False)
            def __getattr__(self, name):
                if name.startswith("do_"):
                    return lambda: self.record(True)
                raise AttributeError(name)
            def log_message(self, *args):
                pass
        server = http.server.HTTPServer(("127.0.0.1", 0), Recorder)
        server.timeout = 30
        print(server.server_address[1], flush=True)
        for _ in range(int(sys.argv[1])):
            server.handle_request()
        """#

    struct Recorded {
        var method: String
        var path: String
        var headers: [(String, String)]
        var body: Data

        func values(_ name: String) -> [String] {
            headers.filter { $0.0.lowercased() == name.lowercased() }.map(\.1)
        }
    }

    /// A running recorder that expects `count` requests.
    final class Recorder {
        let process = Process()
        let lines: LineReader
        let port: Int

        init(count: Int) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", CurlExporterTests.recorder, String(count)]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            lines = LineReader(output.fileHandleForReading)
            let first = try #require(lines.next(), "the recorder did not print its port")
            port = try #require(Int(first), "not a port: \(first)")
        }

        func next() throws -> Recorded {
            let line = try #require(lines.next(), "the recorder saw no request")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let headers = try #require(object["headers"] as? [[String]]).map { ($0[0], $0[1]) }
            let method = try #require(object["method"] as? String)
            let path = try #require(object["path"] as? String)
            let body = try #require(object["body"] as? String)
            return Recorded(method: method, path: path, headers: headers, body: try #require(Data(base64Encoded: body)))
        }

        deinit {
            if process.isRunning { process.terminate() }
        }
    }

    static func exchange(
        _ method: String, _ path: String, port: Int, headers: [(String, String)] = [], body: Data? = nil
    ) -> Exchange {
        Exchange(
            sessionID: "curl", startedAt: SampleExchanges.at(0),
            request: CapturedRequest(
                method: method, url: "http://127.0.0.1:\(port)\(path)",
                headers: HTTPHeaders(headers.map { HTTPHeaderField(name: $0.0, value: $0.1) }),
                body: body.map { CapturedBody(data: $0) }),
            capturePath: .session)
    }

    /// Runs the command with /bin/sh and returns what the recorder saw.
    static func send(_ command: String, to recorder: Recorder) throws -> Recorded {
        let result = try ChildProcess.run("/bin/sh", ["-c", command + " --silent --show-error --output /dev/null"])
        #expect(result.status == 0, "curl failed: \(result.stderrText)\n\(command)")
        return try recorder.next()
    }

    static let nastyHeaders: [(String, String)] = [
        ("X-Quote", #"it's "quoted""#),
        ("X-Shell", "$HOME $(id -u) `uname` ${PATH} \\ !! ;& |"),
        ("X-Unicode", "héllo ✓ 日本語"),
        ("X-Empty", ""),
        ("X-Repeat", "one"),
        ("X-Repeat", "two"),
    ]

    @Test func textRequestsArriveAsCaptured() throws {
        let recorder = try Recorder(count: 3)
        let text = "line one\nit's $HOME `whoami` \"q\" \\ ✓\n@not-a-file"
        let exporter = CurlExporter()

        let post = Self.exchange(
            "POST", "/items?x=1&y=$z&q=%27", port: recorder.port,
            headers: [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", "999")] + Self.nastyHeaders,
            body: Data(text.utf8))
        var seen = try Self.send(try exporter.command(for: post), to: recorder)
        #expect(seen.method == "POST")
        #expect(seen.path == "/items?x=1&y=$z&q=%27")
        #expect(seen.body == Data(text.utf8))
        #expect(seen.values("Content-Length") == [String(text.utf8.count)], "curl computes the length")
        #expect(seen.values("Content-Type") == ["text/plain; charset=utf-8"])
        for (name, value) in Self.nastyHeaders where name != "X-Repeat" {
            #expect(seen.values(name) == [value], "\(name)")
        }
        #expect(seen.values("X-Repeat") == ["one", "two"], "repeated headers keep their order")
        let sent = seen.headers.map(\.0).filter { $0.hasPrefix("X-") }
        #expect(sent == Self.nastyHeaders.map(\.0), "headers in captured order")

        let delete = Self.exchange(
            "DELETE", "/items/7", port: recorder.port, headers: [("Accept", "application/json")],
            body: Data(#"{"why":"it's gone"}"#.utf8))
        seen = try Self.send(try exporter.command(for: delete), to: recorder)
        #expect(seen.method == "DELETE")
        #expect(seen.body == Data(#"{"why":"it's gone"}"#.utf8))
        #expect(seen.values("Content-Type").isEmpty, "curl must not add a form content type")

        let get = Self.exchange("GET", "/search?q=a%20b&list[]=1", port: recorder.port, headers: [("Accept-Encoding", "gzip, deflate")])
        let command = try exporter.command(for: get)
        #expect(command.contains("--compressed"))
        #expect(command.contains("--globoff"))
        seen = try Self.send(command, to: recorder)
        #expect(seen.method == "GET")
        #expect(seen.path == "/search?q=a%20b&list[]=1")
        #expect(seen.body.isEmpty)
        #expect(seen.values("Accept-Encoding").first?.contains("gzip") == true)
    }

    @Test func binaryBodiesArriveByteForByteThroughPrintfAndThroughAFile() throws {
        let recorder = try Recorder(count: 2)
        let bytes = SampleExchanges.binary + Data([0, 0, 0x27, 0x25, 0x5C])
        let put = Self.exchange(
            "PUT", "/blob", port: recorder.port, headers: [("Content-Type", "application/octet-stream")], body: bytes)

        let inline = try CurlExporter().command(for: put)
        #expect(inline.hasPrefix("printf '"))
        var seen = try Self.send(inline, to: recorder)
        #expect(seen.method == "PUT")
        #expect(seen.body == bytes)

        let directory = try TemporaryDirectory()
        let withFile = try CurlExporter(bodyDirectory: directory.file("bodies")).command(for: put)
        let file = directory.file("bodies").appendingPathComponent(put.id.uuidString.lowercased() + ".body")
        #expect(try Data(contentsOf: file) == bytes)
        #expect(withFile.contains("--data-binary " + ShellQuote.quote("@" + file.path)))
        seen = try Self.send(withFile, to: recorder)
        #expect(seen.body == bytes)
        #expect(seen.values("Content-Type") == ["application/octet-stream"])
    }

    @Test func headAndEmptyBodiesAndBodylessPostsAndMethodCase() throws {
        let recorder = try Recorder(count: 4)
        let exporter = CurlExporter()
        var seen = try Self.send(try exporter.command(for: Self.exchange("HEAD", "/h", port: recorder.port)), to: recorder)
        #expect(seen.method == "HEAD")

        seen = try Self.send(
            try exporter.command(for: Self.exchange("POST", "/empty", port: recorder.port, body: Data())), to: recorder)
        #expect(seen.method == "POST")
        #expect(seen.values("Content-Length") == ["0"])

        seen = try Self.send(try exporter.command(for: Self.exchange("POST", "/nobody", port: recorder.port)), to: recorder)
        #expect(seen.method == "POST")
        #expect(seen.body.isEmpty)

        // Methods are case-sensitive: a captured "get" is sent as "get".
        seen = try Self.send(try exporter.command(for: Self.exchange("get", "/lower", port: recorder.port)), to: recorder)
        #expect(seen.method == "get")
    }

    @Test func bodiesNetTapDidNotKeepWholeAreNamedInComments() throws {
        var exchange = Self.exchange("POST", "/upload", port: 9, body: Data("abc".utf8))
        exchange.request.body = CapturedBody(data: Data("abc".utf8), size: 5_000, isTruncated: true)
        let command = try CurlExporter().command(for: exchange)
        let lines = command.split(separator: "\n")
        #expect(lines.first == "# NetTap: request body truncated: the command sends the first 3 of 5000 bytes")
        #expect(lines.dropFirst().first?.hasPrefix("curl ") == true)

        exchange.request.body = .unavailable(size: 10, contentType: nil, reason: "stream body\r\nnot\nreadable")
        let unavailable = try CurlExporter().command(for: exchange)
        #expect(unavailable.hasPrefix("# NetTap: request body not captured: stream body not readable\n"))
    }

    @Test func manyCommandsAreSeparatedByBlankLinesAndEachRuns() throws {
        let recorder = try Recorder(count: 3)
        let exchanges = (1...3).map {
            Self.exchange("PATCH", "/n/\($0)", port: recorder.port, headers: [("X-N", "\($0)")], body: Data("n=\($0)\n".utf8))
        }
        let exporter = CurlExporter()
        let text = try exporter.commands(for: exchanges)
        let groups = text.components(separatedBy: "\n\n")
        #expect(groups.count == 3)
        let sink = DataSink()
        let writer = CurlWriter(sink: sink, exporter: exporter)
        for exchange in exchanges { try writer.write(exchange) }
        try writer.finish()
        #expect(writer.commandCount == 3)
        #expect(sink.data == Data(text.utf8))
        for (index, group) in groups.enumerated() {
            let seen = try Self.send(group.trimmingCharacters(in: .newlines), to: recorder)
            #expect(seen.path == "/n/\(index + 1)")
            #expect(seen.values("X-N") == ["\(index + 1)"])
            #expect(seen.body == Data("n=\(index + 1)\n".utf8))
        }
    }

    @Test func aBodyFileThatCannotBeWrittenIsAnErrorNamingThePath() throws {
        let directory = try TemporaryDirectory()
        let blocker = directory.file("not-a-directory")
        try Data("x".utf8).write(to: blocker)
        let exchange = Self.exchange("PUT", "/b", port: 9, body: Data([0xFF, 0x00]))
        do {
            _ = try CurlExporter(bodyDirectory: blocker).command(for: exchange)
            Issue.record("writing into a file as if it were a directory succeeded")
        } catch let error as CurlExportError {
            #expect(error.path.hasPrefix(blocker.path))
        }
    }
}
