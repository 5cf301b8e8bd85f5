import Foundation
import NetTapCore
import NetTapServer
import NetTapTestSupport
import Testing

/// Request/response basics over raw loopback sockets: GET, HEAD, persistent connections,
/// pipelining, HTTP/1.0, Connection: close, and what the handler is given.
@Suite struct HTTPServerBasicsTests {
    /// Answers with a description of what it received, so tests can check the parse.
    static let describing: HTTPHandler = { request, response in
        let text = "\(request.method) \(request.path) query=\(request.query ?? "-") body=\(request.body.count)\n"
        try response.respond(.text(text))
    }

    @Test func getReturnsStatusHeadersAndBody() throws {
        let fixture = try ServerFixture(handler: Self.describing)
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("GET /hello?x=1 HTTP/1.1\r\nHost: test\r\n\r\n")
        let response = try connection.readResponse()
        let expected = "GET /hello query=x=1 body=0\n"
        #expect(response.status == 200)
        #expect(response.reason == "OK")
        #expect(response.version == "HTTP/1.1")
        #expect(String(decoding: response.body, as: UTF8.self) == expected)
        #expect(response.headers["Content-Length"] == String(expected.utf8.count))
        #expect(response.headers["Content-Type"] == "text/plain; charset=utf-8")
        #expect(response.headers["Date"]?.hasSuffix(" GMT") == true)
        #expect(response.headers["Connection"] == nil)
    }

    @Test func headKeepsContentLengthAndSendsNoBody() throws {
        let fixture = try ServerFixture(handler: Self.describing)
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("HEAD /thing HTTP/1.1\r\nHost: test\r\n\r\n")
        let head = try connection.readResponse(requestMethod: "HEAD")
        #expect(head.status == 200)
        #expect(head.headers["Content-Length"] == String("HEAD /thing query=- body=0\n".utf8.count))
        // Had a body been sent, it would be read here as the start of the next response.
        try connection.send("GET /next HTTP/1.1\r\nHost: test\r\n\r\n")
        let next = try connection.readResponse()
        #expect(String(decoding: next.body, as: UTF8.self) == "GET /next query=- body=0\n")
    }

    @Test func keepAliveServesSeveralRequestsOnOneConnection() throws {
        let scenario = try ScenarioServer()
        let connection = try RawHTTPConnection(port: scenario.port)
        for (index, size) in [10, 0, 70_000, 3].enumerated() {
            try connection.send("GET /bytes/\(size)?seed=\(index) HTTP/1.1\r\nHost: test\r\n\r\n")
            let response = try connection.readResponse()
            #expect(response.status == 200)
            #expect(response.body == ScenarioBytes.bytes(count: size, seed: UInt64(index)))
        }
        let ports = Set(scenario.receivedRequests.map(\.remotePort))
        #expect(scenario.receivedRequests.count == 4)
        #expect(ports.count == 1, "all requests came over one connection")
        #expect(scenario.httpServer.openConnectionCount == 1)
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let fixture = try ServerFixture(handler: Self.describing)
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send(
            "GET /a HTTP/1.1\r\nHost: t\r\n\r\nPOST /b HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nxyz"
                + "GET /c?q HTTP/1.1\r\nHost: t\r\n\r\n")
        let bodies = try (0..<3).map { _ in String(decoding: try connection.readResponse().body, as: UTF8.self) }
        #expect(bodies == ["GET /a query=- body=0\n", "POST /b query=- body=3\n", "GET /c query=q body=0\n"])
    }

    @Test func connectionCloseIsHonoured() throws {
        let fixture = try ServerFixture(handler: Self.describing)
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("GET /bye HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.status == 200)
        #expect(response.headers["Connection"] == "close")
        #expect(try connection.waitForClose() == 0)
    }

    @Test func http10ClosesUnlessKeepAliveIsAsked() throws {
        let fixture = try ServerFixture(handler: Self.describing)
        let plain = try RawHTTPConnection(port: fixture.port)
        try plain.send("GET /old HTTP/1.0\r\n\r\n")
        let first = try plain.readResponse()
        #expect(first.status == 200)
        #expect(first.headers["Connection"] == "close")
        try plain.waitForClose()

        let persistent = try RawHTTPConnection(port: fixture.port)
        try persistent.send("GET /one HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let kept = try persistent.readResponse()
        #expect(kept.headers["Connection"] == "keep-alive")
        try persistent.send("GET /two HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        #expect(String(decoding: try persistent.readResponse().body, as: UTF8.self) == "GET /two query=- body=0\n")
    }

    @Test func handlerReceivesParsedRequest() throws {
        let seen = Protected<HTTPServerRequest?>(nil)
        let fixture = try ServerFixture { request, response in
            seen.withLock { $0 = request }
            try response.respond(status: 204)
        }
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("PATCH /items/a%20b?name=J%C3%BCrgen&flag&x=1+2 HTTP/1.1\r\nHost: example\r\n"
            + "X-Custom:   padded value  \r\nx-custom: second\r\nContent-Length: 4\r\n\r\nDATA")
        let response = try connection.readResponse()
        #expect(response.status == 204)
        #expect(response.headers["Content-Length"] == nil)
        let request = try #require(seen.current)
        #expect(request.method == "PATCH")
        #expect(request.target == "/items/a%20b?name=J%C3%BCrgen&flag&x=1+2")
        #expect(request.path == "/items/a%20b")
        #expect(request.query == "name=J%C3%BCrgen&flag&x=1+2")
        #expect(request.queryItems == [URLQueryItem(name: "name", value: "Jürgen"), URLQueryItem(name: "flag", value: nil),
                                       URLQueryItem(name: "x", value: "1+2")])
        #expect(request.version == .http1_1)
        #expect(request.headers.map(\.name) == ["Host", "X-Custom", "x-custom", "Content-Length"])
        #expect(request.headers.values(for: "X-CUSTOM") == ["padded value", "second"])
        #expect(request.body == Data("DATA".utf8))
        #expect(request.remoteAddress.host == "127.0.0.1")
        #expect(request.remoteAddress.port > 0)
    }

    @Test func absoluteFormTargetYieldsPathAndQuery() throws {
        let fixture = try ServerFixture(handler: Self.describing)
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("GET http://example.com:8080/p/q?k=v HTTP/1.1\r\nHost: example.com\r\n\r\n")
        #expect(String(decoding: try connection.readResponse().body, as: UTF8.self) == "GET /p/q query=k=v body=0\n")
    }

    @Test func leadingEmptyLinesAndBareLineFeedsAreAccepted() throws {
        let fixture = try ServerFixture(handler: Self.describing)
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("\r\n\r\nGET /lf HTTP/1.1\nHost: t\n\n")
        #expect(String(decoding: try connection.readResponse().body, as: UTF8.self) == "GET /lf query=- body=0\n")
    }
}
