import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetTapCore
import NetTapServer
import NetTapTestSupport
import Testing

/// The scenario routes that produce content, through plain URLSession, with exact expectations.
@Suite struct ScenarioContentRoutesTests {
    @Test(arguments: [200, 201, 202, 204, 304, 400, 401, 404, 418, 429, 500, 502, 503])
    func statusRouteAnswersThatStatus(code: Int) async throws {
        let scenario = try ScenarioServer()
        let (data, response) = try await TestSessions.plain().exchange(scenario.url("/status/\(code)"))
        #expect(response.statusCode == code)
        let expectedBody = [204, 304].contains(code) ? "" : "\(code) \(HTTPStatus.reasonPhrase(for: code))\n"
        #expect(String(decoding: data, as: UTF8.self) == expectedBody)
    }

    @Test func statusRouteRejectsBadCodesNamingTheParameter() async throws {
        let scenario = try ScenarioServer()
        let (data, response) = try await TestSessions.plain().exchange(scenario.url("/status/abc"))
        #expect(response.statusCode == 400)
        #expect(String(decoding: data, as: UTF8.self)
            == "400 Bad Request: path parameter 'code' must be an integer in 100...599, got 'abc'\n")
    }

    @Test func informationalStatusIsSentAndTheConnectionClosed() throws {
        let scenario = try ScenarioServer()
        let connection = try RawHTTPConnection(port: scenario.port)
        try connection.send("GET /status/102 HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try connection.readResponse().status == 102)
        try connection.waitForClose()
    }

    @Test func echoReportsMethodPathQueryHeadersAndBody() async throws {
        let scenario = try ScenarioServer()
        var request = URLRequest(url: scenario.url("/echo?a=1&b=two%20words&flag"))
        request.httpMethod = "POST"
        request.setValue("application/x-test", forHTTPHeaderField: "Content-Type")
        request.setValue("Value-42", forHTTPHeaderField: "X-Test-Header")
        let payload = ScenarioBytes.bytes(count: 3_000, seed: 77)
        request.httpBody = payload
        let (data, response) = try await TestSessions.plain().exchange(request)
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let echo = try JSONDecoder().decode(ScenarioEcho.self, from: data)
        #expect(echo.method == "POST")
        #expect(echo.path == "/echo")
        #expect(echo.query == "a=1&b=two%20words&flag")
        #expect(echo.queryItems == [.init(name: "a", value: "1"), .init(name: "b", value: "two words"), .init(name: "flag", value: nil)])
        #expect(echo.header("x-test-header") == "Value-42")
        #expect(echo.header("Content-Type") == "application/x-test")
        #expect(echo.header("Content-Length") == "3000")
        #expect(echo.bodySize == 3_000)
        #expect(echo.bodyData == payload)
        // The log saw the same request.
        let logged = try #require(scenario.receivedRequests.last)
        #expect(logged.method == "POST")
        #expect(logged.target == "/echo?a=1&b=two%20words&flag")
        #expect(logged.body == payload)
        #expect(logged.headers["X-Test-Header"] == "Value-42")
    }

    @Test(arguments: ["GET", "PUT", "DELETE", "PATCH", "OPTIONS"])
    func echoAcceptsAnyMethod(method: String) async throws {
        let scenario = try ScenarioServer()
        var request = URLRequest(url: scenario.url("/echo"))
        request.httpMethod = method
        let (data, _) = try await TestSessions.plain().exchange(request)
        let echo = try JSONDecoder().decode(ScenarioEcho.self, from: data)
        #expect(echo.method == method)
        #expect(echo.query == nil)
        #expect(echo.bodySize == 0)
    }

    @Test func echoRawReturnsTheBodyBytes() async throws {
        let scenario = try ScenarioServer()
        var request = URLRequest(url: scenario.url("/echo/raw"))
        request.httpMethod = "PUT"
        let payload = ScenarioBytes.bytes(count: 250_000, seed: 3)
        request.httpBody = payload
        let (data, response) = try await TestSessions.plain().exchange(request)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/octet-stream")
        #expect(data == payload)
    }

    @Test(arguments: [(0, 0), (1, 9), (65_536, 1), (65_537, 2), (1_000_000, 12_345)])
    func bytesRouteServesTheDeterministicBytes(size: Int, seed: UInt64) async throws {
        let scenario = try ScenarioServer()
        let (data, response) = try await TestSessions.plain().exchange(scenario.url("/bytes/\(size)?seed=\(seed)"))
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "Content-Length") == String(size))
        #expect(data == ScenarioBytes.bytes(count: size, seed: seed))
    }

    @Test func bytesRouteWithoutSeedUsesSeedZero() async throws {
        let scenario = try ScenarioServer()
        let (data, _) = try await TestSessions.plain().exchange(scenario.url("/bytes/100"))
        #expect(data == ScenarioBytes.bytes(count: 100, seed: 0))
    }

    @Test(arguments: [1, 4, 1_000, 300_000])
    func chunkedRouteServesTheSameBytesInChunks(size: Int) async throws {
        let scenario = try ScenarioServer()
        let (data, response) = try await TestSessions.plain().exchange(scenario.url("/chunked/\(size)?seed=5"))
        #expect(response.value(forHTTPHeaderField: "Transfer-Encoding")?.lowercased() == "chunked")
        #expect(data == ScenarioBytes.bytes(count: size, seed: 5))

        let raw = try RawHTTPConnection(port: scenario.port)
        try raw.send("GET /chunked/\(size)?seed=5 HTTP/1.1\r\nHost: t\r\n\r\n")
        let wire = try raw.readResponse()
        #expect(wire.wasChunked)
        // Documented split: quarters of the body, each at most 64 KiB.
        let chunkSize = max(1, min(65_536, (size + 3) / 4))
        #expect(wire.chunkCount == (size + chunkSize - 1) / chunkSize)
        #expect(wire.chunkCount >= min(size, 4))
        #expect(wire.body == data)
    }

    @Test(arguments: [0, 10, 100_000])
    func gzipRouteDecodesToTheText(size: Int) async throws {
        let scenario = try ScenarioServer()
        var request = URLRequest(url: scenario.url("/gzip/\(size)"))
        request.setValue("gzip", forHTTPHeaderField: "Accept-Encoding")
        let (data, response) = try await TestSessions.plain().exchange(request)
        #expect(response.statusCode == 200)
        #expect(data == ScenarioBytes.text(count: size), "URLSession decoded the gzip body")

        let raw = try RawHTTPConnection(port: scenario.port)
        try raw.send("GET /gzip/\(size) HTTP/1.1\r\nHost: t\r\n\r\n")
        let wire = try raw.readResponse()
        #expect(wire.headers["Content-Encoding"] == "gzip")
        #expect(wire.headers["Content-Length"] == String(wire.body.count))
        #expect(try Gzip.decompress(wire.body) == ScenarioBytes.text(count: size))
    }

    @Test func textRouteServesTheText() async throws {
        let scenario = try ScenarioServer()
        let (data, response) = try await TestSessions.plain().exchange(scenario.url("/text/200"))
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=utf-8")
        #expect(data == ScenarioBytes.text(count: 200))
        #expect(String(decoding: data, as: UTF8.self).hasPrefix("line 000001: the quick brown fox"))
    }

    @Test func jsonRouteServesTheSampleWithSecretFields() async throws {
        let scenario = try ScenarioServer()
        let (data, response) = try await TestSessions.plain().exchange(scenario.url("/json"))
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(data == ScenarioServer.sampleJSON)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["token"] as? String == "tok_live_5f2b9c")
        #expect(object["password"] as? String == "hunter2")
        #expect((object["profile"] as? [String: Any])?["access_token"] as? String == "at_9d8e7f")
        #expect(object["name"] as? String == "Ada Lovelace")
    }

    @Test func headersRouteSendsCustomFieldsAndTwoSetCookies() async throws {
        let scenario = try ScenarioServer()
        let raw = try RawHTTPConnection(port: scenario.port)
        try raw.send("GET /headers HTTP/1.1\r\nHost: t\r\n\r\n")
        let wire = try raw.readResponse()
        #expect(wire.headers.values(for: "Set-Cookie") == ["first=1; Path=/", "second=2; Path=/; HttpOnly"])
        #expect(wire.headers.contains { $0.name == "X-Mixed-Case-Header" && $0.value == "MixedValue" })
        #expect(wire.headers["X-NetTap-Scenario"] == "headers")

        let (_, response) = try await TestSessions.plain().exchange(scenario.url("/headers"))
        #expect(response.value(forHTTPHeaderField: "X-NetTap-Scenario") == "headers")
        #expect(response.value(forHTTPHeaderField: "Set-Cookie")?.contains("second=2") == true)
    }

    @Test func unknownRouteIs404AndWrongMethodIs405() async throws {
        let scenario = try ScenarioServer()
        let session = TestSessions.plain()
        let (_, missing) = try await session.exchange(scenario.url("/no/such/route"))
        #expect(missing.statusCode == 404)
        var post = URLRequest(url: scenario.url("/bytes/10"))
        post.httpMethod = "POST"
        let (_, wrongMethod) = try await session.exchange(post)
        #expect(wrongMethod.statusCode == 405)
        #expect(wrongMethod.value(forHTTPHeaderField: "Allow") == "GET, HEAD")
    }
}
