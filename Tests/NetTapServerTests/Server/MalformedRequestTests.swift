import Foundation
import NetTapCore
import NetTapServer
import NetTapTestSupport
import Testing

/// Broken requests get the right status, a body naming the problem, and a closed connection;
/// nothing a client sends can stop the server from serving the next client.
@Suite struct MalformedRequestTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var wire: String
        var status: Int
        var fragment: String
        var testDescription: String { name }
    }

    static let limits = HTTPServer.Limits(maxHeaderBytes: 4_096, maxHeaderCount: 20, maxBodyBytes: 1_000, maxConnections: 64)

    static let cases: [Case] = [
        Case(name: "garbage", wire: "GARBAGE\r\n\r\n", status: 400, fragment: "malformed request line"),
        Case(name: "no version", wire: "GET /\r\n\r\n", status: 400, fragment: "malformed request line"),
        Case(name: "extra token", wire: "GET / HTTP/1.1 extra\r\n\r\n", status: 400, fragment: "malformed request line"),
        Case(name: "double space", wire: "GET  / HTTP/1.1\r\n\r\n", status: 400, fragment: "malformed request line"),
        Case(name: "bad method", wire: "G@T / HTTP/1.1\r\n\r\n", status: 400, fragment: "invalid method"),
        Case(name: "bad version", wire: "GET / HTTX/1.1\r\n\r\n", status: 400, fragment: "invalid HTTP version 'HTTX/1.1'"),
        Case(name: "http/2", wire: "GET / HTTP/2.0\r\n\r\n", status: 505, fragment: "HTTP/2.0 is not supported"),
        Case(name: "control in target", wire: "GET /a\u{7}b HTTP/1.1\r\n\r\n", status: 400, fragment: "invalid request target"),
        Case(name: "no colon", wire: "GET / HTTP/1.1\r\nHost: t\r\nNoColon\r\n\r\n", status: 400, fragment: "header line 3: missing ':'"),
        Case(name: "space in name", wire: "GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", status: 400, fragment: "header line 2: invalid character in field name"),
        Case(name: "space before colon", wire: "GET / HTTP/1.1\r\nHost : x\r\n\r\n", status: 400, fragment: "header line 2: invalid character"),
        Case(name: "empty name", wire: "GET / HTTP/1.1\r\n: x\r\n\r\n", status: 400, fragment: "header line 2: empty field name"),
        Case(name: "obs-fold", wire: "GET / HTTP/1.1\r\nX-A: 1\r\n  folded\r\n\r\n", status: 400, fragment: "header line 3: obsolete line folding"),
        Case(name: "control in value", wire: "GET / HTTP/1.1\r\nX-A: a\u{1}b\r\n\r\n", status: 400, fragment: "header line 2: control character"),
        Case(name: "non-numeric length", wire: "POST / HTTP/1.1\r\nContent-Length: 12a\r\n\r\n", status: 400, fragment: "Content-Length '12a' is not a number"),
        Case(name: "negative length", wire: "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", status: 400, fragment: "is not a number"),
        Case(name: "conflicting lengths", wire: "POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", status: 400, fragment: "conflicting Content-Length values 5 and 6"),
        Case(name: "length and chunked", wire: "POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", status: 400, fragment: "both Transfer-Encoding and Content-Length"),
        Case(name: "coding not ending in chunked", wire: "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", status: 400, fragment: "does not end in chunked"),
        Case(name: "unsupported coding", wire: "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", status: 501, fragment: "only chunked"),
        Case(name: "bad chunk size", wire: "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n", status: 400, fragment: "chunk 0: invalid size line 'ZZ'"),
        Case(name: "chunk longer than size", wire: "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcdef\r\n0\r\n\r\n", status: 400, fragment: "chunk 0: data is longer than its size 3"),
        Case(name: "unknown expectation", wire: "GET / HTTP/1.1\r\nExpect: teapot\r\n\r\n", status: 417, fragment: "unsupported expectation 'teapot'"),
        Case(name: "body over limit", wire: "POST / HTTP/1.1\r\nContent-Length: 1001\r\n\r\n", status: 413, fragment: "Content-Length 1001 exceeds the body limit of 1000 bytes"),
        Case(name: "huge length", wire: "POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n", status: 413, fragment: "exceeds the body limit"),
        Case(name: "request line too long", wire: "GET /" + String(repeating: "a", count: 5_000) + " HTTP/1.1\r\n\r\n", status: 414, fragment: "request line longer than 4096 bytes"),
        Case(name: "headers too large", wire: "GET / HTTP/1.1\r\nX-Big: " + String(repeating: "b", count: 5_000) + "\r\n\r\n", status: 431, fragment: "request head larger than 4096 bytes"),
        Case(name: "too many headers", wire: "GET / HTTP/1.1\r\n" + (0..<21).map { "X-\($0): v\r\n" }.joined() + "\r\n", status: 431, fragment: "too many header fields: 21, limit 20"),
    ]

    @Test(arguments: cases)
    func isAnsweredWithItsStatusAndClosed(_ testCase: Case) throws {
        let fixture = try ServerFixture(configuration: HTTPServer.Configuration(limits: Self.limits)) { _, response in
            try response.respond(.text("should not be reached\n"))
        }
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send(testCase.wire)
        let response = try connection.readResponse()
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(response.status == testCase.status)
        #expect(text.contains(testCase.fragment), "body was: \(text)")
        #expect(response.headers["Connection"] == "close")
        try connection.waitForClose()

        // The server is unharmed.
        let next = try RawHTTPConnection(port: fixture.port)
        try next.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try next.readResponse().status == 200)
    }

    @Test func truncatedRequestThenSilenceGets408() throws {
        let fixture = try ServerFixture(configuration: HTTPServer.Configuration(idleTimeout: 0.3)) { _, response in
            try response.respond(status: 200)
        }
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("GET / HTTP/1.1\r\nHost: t\r\n")
        let response = try connection.readResponse()
        #expect(response.status == 408)
        try connection.waitForClose()
    }

    @Test func randomBytesNeverHurtTheServer() throws {
        let fixture = try ServerFixture(configuration: HTTPServer.Configuration(limits: Self.limits, idleTimeout: 2)) { _, response in
            try response.respond(.text("fine\n"))
        }
        for seed in 0..<40 {
            var blob = ScenarioBytes.bytes(count: 1 + (seed * 97) % 6_000, seed: UInt64(seed))
            // Some blobs start like a request, to reach deeper into the parser.
            if seed % 2 == 0 { blob = Data("POST /x HTTP/1.1\r\n".utf8) + blob }
            let connection = try RawHTTPConnection(port: fixture.port)
            try? connection.send(blob)
            connection.shutdownWrite()
            let answer = try connection.readUntilClose()
            if !answer.isEmpty {
                let statusLine = String(decoding: answer.prefix(12), as: UTF8.self)
                #expect(statusLine.hasPrefix("HTTP/1.1 4") || statusLine.hasPrefix("HTTP/1.1 5") || statusLine.hasPrefix("HTTP/1.1 2"),
                        "seed \(seed) got '\(statusLine)'")
            }
        }
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(String(decoding: try connection.readResponse().body, as: UTF8.self) == "fine\n")
    }
}
