import Foundation
import NetTapCore
import NetTapServer
import NetTapTestSupport
import Testing

/// Every response shape the writer offers, checked on the wire.
@Suite struct HTTPResponseWriterTests {
    @Test func chunkedStreamArrivesAsChunks() throws {
        let pieces = [Data("first ".utf8), Data(), ScenarioBytes.bytes(count: 40_000, seed: 4), Data(" last".utf8)]
        let fixture = try ServerFixture { _, response in
            try response.startChunked(status: 200, headers: ["Content-Type": "application/octet-stream"])
            for piece in pieces { try response.writeChunk(piece) }
            try response.end()
        }
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.wasChunked)
        #expect(response.chunkCount == 3, "the empty piece writes no chunk")
        #expect(response.headers["Content-Length"] == nil)
        #expect(response.body == pieces.reduce(Data(), +))
        // Still persistent after the last chunk.
        try connection.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try connection.readResponse().body == pieces.reduce(Data(), +))
    }

    @Test func chunkedToHTTP10IsClosedDelimited() throws {
        let fixture = try ServerFixture { _, response in
            try response.startChunked(status: 200)
            try response.writeChunk(Data("abc".utf8))
            try response.writeChunk(Data("def".utf8))
            try response.end()
        }
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let response = try connection.readResponse()
        #expect(!response.wasChunked)
        #expect(response.headers["Transfer-Encoding"] == nil)
        #expect(response.headers["Connection"] == "close")
        #expect(response.body == Data("abcdef".utf8))
    }

    @Test func fixedLengthBodyWrittenInSlices() throws {
        let body = ScenarioBytes.bytes(count: 10_000, seed: 8)
        let fixture = try ServerFixture { _, response in
            try response.start(status: 201, headers: ["X-Slices": "4"], contentLength: body.count)
            for start in stride(from: 0, to: body.count, by: 2_500) {
                try response.write(body.subdata(in: start..<(start + 2_500)))
                response.pause(milliseconds: 1)
            }
            try response.end()
        }
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.status == 201)
        #expect(response.headers["Content-Length"] == "10000")
        #expect(response.headers["X-Slices"] == "4")
        #expect(response.body == body)
    }

    @Test func shortFixedLengthBodyThrowsAndClosesTheConnection() throws {
        let thrown = Protected<HTTPServerError?>(nil)
        let fixture = try ServerFixture { _, response in
            try response.start(status: 200, contentLength: 10)
            try response.write(Data("1234".utf8))
            do {
                try response.end()
            } catch let error as HTTPServerError {
                thrown.withLock { $0 = error }
            }
        }
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(throws: RawHTTPConnection.Failure.self) { try connection.readResponse() }
        #expect(thrown.current == .bodyLengthMismatch(expected: 10, written: 4))
    }

    @Test func writingPastContentLengthIsRefused() throws {
        let thrown = Protected<HTTPServerError?>(nil)
        let fixture = try ServerFixture { _, response in
            try response.start(status: 200, contentLength: 3)
            do {
                try response.write(Data("toolong".utf8))
            } catch let error as HTTPServerError {
                thrown.withLock { $0 = error }
            }
            try response.write(Data("abc".utf8))
            try response.end()
        }
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try connection.readResponse().body == Data("abc".utf8))
        #expect(thrown.current == .bodyLengthMismatch(expected: 3, written: 7))
    }

    @Test func abortBeforeRespondingClosesWithoutAnswer() throws {
        let fixture = try ServerFixture { _, response in response.abort() }
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try connection.readUntilClose().isEmpty)
        #expect(!connection.sawReset)
    }

    @Test func abortMidResponseCutsTheBody() throws {
        let fixture = try ServerFixture { _, response in
            try response.start(status: 200, contentLength: 100)
            try response.write(Data("partial".utf8))
            response.abort()
        }
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        let everything = String(decoding: try connection.readUntilClose(), as: UTF8.self)
        #expect(everything.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(everything.hasSuffix("\r\n\r\npartial"))
    }

    @Test func abortWithResetSendsRST() throws {
        let fixture = try ServerFixture { _, response in response.abort(reset: true) }
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try connection.readUntilClose().isEmpty)
        #expect(connection.sawReset)
    }

    @Test func handlerErrorBeforeAnsweringBecomes500() throws {
        struct Boom: Error, CustomStringConvertible { var description: String { "boom at step 3" } }
        let messages = Protected<[String]>([])
        let configuration = HTTPServer.Configuration(diagnostics: { line in messages.withLock { $0.append(line) } })
        let fixture = try ServerFixture(configuration: configuration) { request, response in
            if request.path == "/fail" { throw Boom() }
            try response.respond(.text("ok\n"))
        }
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("GET /fail HTTP/1.1\r\nHost: t\r\n\r\n")
        let failed = try connection.readResponse()
        #expect(failed.status == 500)
        #expect(String(decoding: failed.body, as: UTF8.self) == "500 Internal Server Error: boom at step 3\n")
        try connection.send("GET /next HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try connection.readResponse().status == 200, "a clean 500 keeps the connection usable")
        #expect(messages.current == ["handler for GET /fail threw: boom at step 3"])
    }

    @Test func handlerThatSendsNothingGets500AndClose() throws {
        let fixture = try ServerFixture { _, _ in }
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.status == 500)
        #expect(String(decoding: response.body, as: UTF8.self).contains("the handler sent no response"))
        try connection.waitForClose()
    }

    @Test func respondingTwiceIsRefused() throws {
        let second = Protected<HTTPServerError?>(nil)
        let attempted = Signal()
        let fixture = try ServerFixture { _, response in
            try response.respond(.text("one\n"))
            defer { attempted.raise() }
            do {
                try response.respond(.text("two\n"))
            } catch let error as HTTPServerError {
                second.withLock { $0 = error }
            }
        }
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(String(decoding: try connection.readResponse().body, as: UTF8.self) == "one\n")
        // The client can read the first response before the handler has tried the second one.
        #expect(attempted.wait(seconds: 30), "the handler never tried to respond a second time")
        #expect(second.current == .responseState("respond after the response had started"))
    }

    @Test func headerInjectionIsRefused() throws {
        let fixture = try ServerFixture { _, response in
            try response.respond(status: 200, headers: ["X-Evil": "a\r\nSet-Cookie: stolen=1"], body: Data("x".utf8))
        }
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.status == 500)
        #expect(!response.headers.contains("Set-Cookie"))
        #expect(String(decoding: response.body, as: UTF8.self).contains("header 'X-Evil' has CR, LF or NUL in its value"))
    }

    @Test(arguments: [204, 304])
    func bodylessStatusesSendNoBody(status: Int) throws {
        let fixture = try ServerFixture { _, response in
            try response.respond(status: status, headers: ["ETag": "\"e\""], body: Data("ignored".utf8))
        }
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("GET / HTTP/1.1\r\nHost: t\r\n\r\nGET / HTTP/1.1\r\nHost: t\r\n\r\n")
        for _ in 0..<2 {
            let response = try connection.readResponse()
            #expect(response.status == status)
            #expect(response.headers["Content-Length"] == nil)
            #expect(response.headers["ETag"] == "\"e\"")
        }
    }

    @Test func headOfChunkedResponseSendsHeadersOnly() throws {
        let fixture = try ServerFixture { _, response in
            try response.startChunked(status: 200)
            try response.writeChunk(Data("body".utf8))
            try response.end()
        }
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("HEAD / HTTP/1.1\r\nHost: t\r\n\r\n")
        let head = try connection.readResponse(requestMethod: "HEAD")
        #expect(head.headers["Transfer-Encoding"] == "chunked")
        try connection.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try connection.readResponse().body == Data("body".utf8))
    }

    @Test func handlerCanCloseAfterResponse() throws {
        let fixture = try ServerFixture { _, response in
            response.keepsConnectionOpen = false
            try response.respond(.text("last\n"))
        }
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try connection.readResponse().headers["Connection"] == "close")
        try connection.waitForClose()
    }

    @Test func gzippedResponseDecodesToTheOriginal() throws {
        let text = ScenarioBytes.text(count: 30_000)
        let fixture = try ServerFixture { _, response in
            try response.respond(try HTTPServerResponse(status: 200, body: text).gzipped())
        }
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.headers["Content-Encoding"] == "gzip")
        #expect(response.body.count < text.count / 4)
        #expect(try Gzip.decompress(response.body) == text)
    }
}
