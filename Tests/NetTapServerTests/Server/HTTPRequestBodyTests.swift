import Foundation
import NetTapCore
import NetTapServer
import NetTapTestSupport
import Testing

/// Request bodies: Content-Length, chunked (with extensions and trailers), Expect: 100-continue,
/// and the body limit.
@Suite struct HTTPRequestBodyTests {
    /// Echoes the request body back.
    static let echo: HTTPHandler = { request, response in
        try response.respond(status: 200, headers: ["Content-Type": "application/octet-stream"], body: request.body)
    }

    @Test(arguments: [1, 1_000, 65_536, 1_000_003])
    func contentLengthBodyArrivesWhole(size: Int) throws {
        let fixture = try ServerFixture(handler: Self.echo)
        let connection = try RawHTTPConnection(port: fixture.port)
        let body = ScenarioBytes.bytes(count: size, seed: 11)
        try connection.send("POST /up HTTP/1.1\r\nHost: t\r\nContent-Length: \(size)\r\n\r\n")
        try connection.send(body)
        #expect(try connection.readResponse().body == body)
    }

    @Test func chunkedBodyIsDecoded() throws {
        let fixture = try ServerFixture(handler: Self.echo)
        let connection = try RawHTTPConnection(port: fixture.port)
        let large = ScenarioBytes.bytes(count: 70_000, seed: 2)
        var wire = Data("POST /up HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        wire.append(Data("5;name=value\r\nhello\r\n".utf8))
        wire.append(Data("\(String(large.count, radix: 16))\r\n".utf8))
        wire.append(large)
        wire.append(Data("\r\n1\r\n!\r\n0\r\nX-Trailer: t\r\n\r\n".utf8))
        try connection.send(wire)
        let response = try connection.readResponse()
        #expect(response.body == Data("hello".utf8) + large + Data("!".utf8))
        // The trailer was consumed: the connection carries the next request cleanly.
        try connection.send("POST /again HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nok")
        #expect(try connection.readResponse().body == Data("ok".utf8))
    }

    @Test func chunkedBodyArrivingByteByByteIsDecoded() throws {
        let fixture = try ServerFixture(handler: Self.echo)
        let connection = try RawHTTPConnection(port: fixture.port)
        let wire = "POST /up HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nA\r\n0123456789\r\n0\r\n\r\n"
        for byte in wire.utf8 { try connection.send(Data([byte])) }
        #expect(try connection.readResponse().body == Data("abc0123456789".utf8))
    }

    @Test func expectContinueGetsInterimResponseBeforeBody() throws {
        let fixture = try ServerFixture(handler: Self.echo)
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("PUT /up HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        let interim = try connection.readResponse()
        #expect(interim.status == 100)
        #expect(interim.reason == "Continue")
        try connection.send("12345")
        let final = try connection.readResponse()
        #expect(final.status == 200)
        #expect(final.body == Data("12345".utf8))
    }

    @Test func expectContinueOverTheLimitIsRefusedWithoutReadingTheBody() throws {
        var configuration = HTTPServer.Configuration()
        configuration.limits.maxBodyBytes = 100
        let fixture = try ServerFixture(configuration: configuration, handler: Self.echo)
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("PUT /up HTTP/1.1\r\nHost: t\r\nContent-Length: 101\r\nExpect: 100-continue\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.status == 413)
        #expect(String(decoding: response.body, as: UTF8.self).contains("Content-Length 101 exceeds the body limit of 100 bytes"))
        #expect(response.headers["Connection"] == "close")
    }

    @Test func bodyAtTheLimitIsAcceptedAndOneMoreByteIsNot() throws {
        var configuration = HTTPServer.Configuration()
        configuration.limits.maxBodyBytes = 1_000
        let fixture = try ServerFixture(configuration: configuration, handler: Self.echo)
        let exact = try RawHTTPConnection(port: fixture.port)
        try exact.send("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\n")
        try exact.send(ScenarioBytes.bytes(count: 1_000, seed: 1))
        #expect(try exact.readResponse().status == 200)

        let over = try RawHTTPConnection(port: fixture.port)
        try over.send("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 1001\r\n\r\n")
        #expect(try over.readResponse().status == 413)
        try over.waitForClose()
    }

    @Test func chunkedBodyOverTheLimitIs413() throws {
        var configuration = HTTPServer.Configuration()
        configuration.limits.maxBodyBytes = 10
        let fixture = try ServerFixture(configuration: configuration, handler: Self.echo)
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n6\r\nghijkl\r\n0\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.status == 413)
        #expect(String(decoding: response.body, as: UTF8.self).contains("chunked body exceeds the body limit of 10 bytes"))
        try connection.waitForClose()
    }

    @Test func compressedUploadCanBeDecoded() throws {
        let text = ScenarioBytes.text(count: 50_000)
        let fixture = try ServerFixture { request, response in
            let plain = request.headers["Content-Encoding"] == "gzip" ? try Gzip.decompress(request.body) : request.body
            try response.respond(status: 200, body: plain)
        }
        let connection = try RawHTTPConnection(port: fixture.port)
        let packed = try Gzip.compress(text)
        try connection.send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Encoding: gzip\r\nContent-Length: \(packed.count)\r\n\r\n")
        try connection.send(packed)
        #expect(try connection.readResponse().body == text)
    }
}
