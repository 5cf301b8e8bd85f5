import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetTapCore
import NetTapServer
import NetTapTestSupport
import Testing

/// The scenario routes that behave: redirects, delays, trickled bodies, auth, cookies,
/// conditional requests, dropped connections. Through plain URLSession unless the wire matters.
@Suite struct ScenarioBehaviourRoutesTests {
    @Test(arguments: [301, 302, 303, 307, 308])
    func redirectRouteSendsTheCodeAndLocation(code: Int) async throws {
        let scenario = try ScenarioServer()
        let (_, response) = try await TestSessions.notFollowingRedirects().exchange(scenario.url("/redirect/\(code)?to=/text/12"))
        #expect(response.statusCode == code)
        #expect(response.value(forHTTPHeaderField: "Location") == "/text/12")
        // Linux URLSession hands back a declined redirect without its body, so read the body raw.
        let raw = try RawHTTPConnection(port: scenario.port)
        try raw.send("GET /redirect/\(code)?to=/text/12 HTTP/1.1\r\nHost: t\r\n\r\n")
        let wire = try raw.readResponse()
        #expect(wire.headers["Location"] == "/text/12")
        #expect(String(decoding: wire.body, as: UTF8.self) == "\(code) \(HTTPStatus.reasonPhrase(for: code)): /text/12\n")

        let (followed, final) = try await TestSessions.plain().exchange(scenario.url("/redirect/\(code)?to=/text/12"))
        #expect(final.statusCode == 200)
        #expect(final.url?.path == "/text/12")
        #expect(followed == ScenarioBytes.text(count: 12))
    }

    @Test func redirect303TurnsPostIntoGetAnd307KeepsIt() async throws {
        let scenario = try ScenarioServer()
        let session = TestSessions.plain()
        for (code, method) in [(303, "GET"), (307, "POST")] {
            var request = URLRequest(url: scenario.url("/redirect/\(code)?to=/echo"))
            request.httpMethod = "POST"
            request.httpBody = Data("hello".utf8)
            let (data, _) = try await session.exchange(request)
            let echo = try JSONDecoder().decode(ScenarioEcho.self, from: data)
            #expect(echo.method == method, "after \(code)")
            // (Linux URLSession re-sends a 307 POST without its body; the server reports what arrived.)
        }
        #expect(scenario.receivedRequests.map(\.method) == ["POST", "GET", "POST", "POST"])
        #expect(scenario.receivedRequests[0].body == Data("hello".utf8))
    }

    @Test func redirectRouteRejectsNonRedirectCodes() async throws {
        let scenario = try ScenarioServer()
        let (data, response) = try await TestSessions.plain().exchange(scenario.url("/redirect/304"))
        #expect(response.statusCode == 400)
        #expect(String(decoding: data, as: UTF8.self).contains("'code' must be 301, 302, 303, 307 or 308, got 304"))
    }

    @Test func redirectChainTakesNHopsThenAnswers() async throws {
        let scenario = try ScenarioServer()
        let (data, response) = try await TestSessions.plain().exchange(scenario.url("/redirect-chain/3"))
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "redirect chain complete\n")
        #expect(scenario.receivedRequests.map(\.target) == ["/redirect-chain/3", "/redirect-chain/2", "/redirect-chain/1", "/redirect-chain/0"])

        let (_, hop) = try await TestSessions.notFollowingRedirects().exchange(scenario.url("/redirect-chain/2"))
        #expect(hop.statusCode == 302)
        #expect(hop.value(forHTTPHeaderField: "Location") == "/redirect-chain/1")
    }

    @Test func delayRouteAnswersAfterTheDelay() async throws {
        let scenario = try ScenarioServer()
        let (data, response) = try await TestSessions.plain().exchange(scenario.url("/delay/30"))
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "delayed 30 ms\n")
    }

    @Test func delayEndsWhenTheServerStops() async throws {
        let scenario = try ScenarioServer()
        let session = TestSessions.plain()
        let url = scenario.url("/delay/600000")
        let pending = Task { try await session.exchange(url) }
        #expect(await scenario.waitForRequests(count: 1, timeout: 60))
        #expect(scenario.stop(), "the ten-minute delay did not hold up stop()")
        let outcome = try await withTimeout(seconds: 30, "the delayed request") { await pending.result }
        #expect(throws: URLError.self) { try outcome.get() }
    }

    @Test func slowBodyTricklesTheWholeBody() async throws {
        let scenario = try ScenarioServer()
        let (data, response) = try await TestSessions.plain().exchange(scenario.url("/slow-body/5000?chunk=1000&interval_ms=5&seed=4"))
        #expect(response.value(forHTTPHeaderField: "Content-Length") == "5000")
        #expect(data == ScenarioBytes.bytes(count: 5_000, seed: 4))

        let raw = try RawHTTPConnection(port: scenario.port)
        try raw.send("GET /slow-body/10?chunk=3&interval_ms=0 HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try raw.readResponse().body == ScenarioBytes.bytes(count: 10, seed: 0))
    }

    @Test func slowBodyStopsWhenTheClientLeaves() throws {
        let scenario = try ScenarioServer()
        let raw = try RawHTTPConnection(port: scenario.port)
        // 1,000 slices a second apart would take a quarter of an hour.
        try raw.send("GET /slow-body/1000000?chunk=1000&interval_ms=1000 HTTP/1.1\r\nHost: t\r\n\r\n")
        _ = try raw.readExactly(200, what: "the response head")
        raw.close()
        #expect(scenario.httpServer.waitForOpenConnections(atMost: 0, timeout: 10), "the trickle ended within a slice")
    }

    @Test func slowBodyRejectsBadQueryParameters() async throws {
        let scenario = try ScenarioServer()
        let (data, response) = try await TestSessions.plain().exchange(scenario.url("/slow-body/10?chunk=0"))
        #expect(response.statusCode == 400)
        #expect(String(decoding: data, as: UTF8.self).contains("query parameter 'chunk' must be an integer in 1...16777216, got '0'"))
    }

    @Test func basicAuthChallengesAndAccepts() async throws {
        let scenario = try ScenarioServer()
        let target = "/auth/basic?user=ada&password=s3cret"
        // Linux URLSession never returns a challenged 401 to its caller, so the challenge is read raw.
        let raw = try RawHTTPConnection(port: scenario.port)
        try raw.send("GET \(target) HTTP/1.1\r\nHost: t\r\n\r\n")
        let challenged = try raw.readResponse()
        #expect(challenged.status == 401)
        #expect(challenged.headers["WWW-Authenticate"] == "Basic realm=\"nettap\"")
        let wrong = "Basic " + Data("ada:nope".utf8).base64EncodedString()
        try raw.send("GET \(target) HTTP/1.1\r\nHost: t\r\nAuthorization: \(wrong)\r\n\r\n")
        #expect(try raw.readResponse().status == 401)

        let session = TestSessions.plain()
        let (_, unchallenged) = try await session.exchange(scenario.url(target + "&challenge=none"))
        #expect(unchallenged.statusCode == 401)
        #expect(unchallenged.value(forHTTPHeaderField: "WWW-Authenticate") == nil)

        let right = "Basic " + Data("ada:s3cret".utf8).base64EncodedString()
        var request = URLRequest(url: scenario.url(target))
        request.setValue(right, forHTTPHeaderField: "Authorization")
        let (data, accepted) = try await session.exchange(request)
        #expect(accepted.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == #"{"authenticated":true,"user":"ada"}"#)
        #expect(scenario.receivedRequests.last?.headers["Authorization"] == right)
    }

    @Test func cookiesAreSetAndEchoed() async throws {
        let scenario = try ScenarioServer()
        let raw = try RawHTTPConnection(port: scenario.port)
        try raw.send("GET /cookies/set?session=abc&theme=dark HTTP/1.1\r\nHost: t\r\n\r\n")
        let set = try raw.readResponse()
        #expect(set.headers.values(for: "Set-Cookie") == ["session=abc; Path=/", "theme=dark; Path=/"])
        #expect(String(decoding: set.body, as: UTF8.self) == #"{"cookies":{"session":"abc","theme":"dark"}}"#)

        let setURL = scenario.url("/cookies/set?session=abc&theme=dark")
        let (setBody, setResponse) = try await TestSessions.plain().exchange(setURL)
        #expect(String(decoding: setBody, as: UTF8.self) == #"{"cookies":{"session":"abc","theme":"dark"}}"#)
        let fields = setResponse.allHeaderFields.reduce(into: [String: String]()) { result, field in
            if let name = field.key as? String, let value = field.value as? String { result[name] = value }
        }
        let cookies = HTTPCookie.cookies(withResponseHeaderFields: fields, for: setURL)
        #expect(cookies.map { "\($0.name)=\($0.value)" }.sorted() == ["session=abc", "theme=dark"])

        var request = URLRequest(url: scenario.url("/cookies"))
        request.setValue("session=abc; theme=dark", forHTTPHeaderField: "Cookie")
        let (data, _) = try await TestSessions.plain().exchange(request)
        #expect(String(decoding: data, as: UTF8.self) == #"{"cookies":{"session":"abc","theme":"dark"}}"#)

        let (empty, _) = try await TestSessions.plain().exchange(scenario.url("/cookies"))
        #expect(String(decoding: empty, as: UTF8.self) == #"{"cookies":{}}"#)
    }

    @Test func entityTagRevalidationGives304() async throws {
        let scenario = try ScenarioServer()
        let session = TestSessions.plain()
        let (data, fresh) = try await session.exchange(scenario.url("/cache/etag"))
        #expect(fresh.statusCode == 200)
        #expect(fresh.value(forHTTPHeaderField: "ETag") == ScenarioServer.entityTag)
        #expect(String(decoding: data, as: UTF8.self) == "entity nettap-etag-v1\n")

        var conditional = URLRequest(url: scenario.url("/cache/etag"))
        conditional.setValue(ScenarioServer.entityTag, forHTTPHeaderField: "If-None-Match")
        let (notModifiedBody, notModified) = try await session.exchange(conditional)
        #expect(notModified.statusCode == 304)
        #expect(notModifiedBody.isEmpty)

        var stale = URLRequest(url: scenario.url("/cache/etag"))
        stale.setValue("\"other\"", forHTTPHeaderField: "If-None-Match")
        #expect(try await session.exchange(stale).1.statusCode == 200)
    }

    @Test func dropClosesWithoutAResponse() async throws {
        let scenario = try ScenarioServer()
        await #expect(throws: URLError.self) {
            _ = try await TestSessions.plain().exchange(scenario.url("/drop"))
        }
        let raw = try RawHTTPConnection(port: scenario.port)
        try raw.send("GET /drop HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try raw.readUntilClose().isEmpty)
    }

    @Test func requestLogCanBeWaitedOnAndCleared() async throws {
        let scenario = try ScenarioServer()
        let session = TestSessions.plain()
        for index in 0..<3 { _ = try await session.exchange(scenario.url("/text/\(index)")) }
        #expect(await scenario.waitForRequests(count: 3, timeout: 5))
        #expect(scenario.receivedRequests(path: "/text/1").count == 1)
        #expect(scenario.receivedRequests.map(\.method) == ["GET", "GET", "GET"])
        scenario.clearLog()
        #expect(scenario.receivedRequests.isEmpty)
        #expect(await scenario.waitForRequests(count: 1, timeout: 0.05) == false)
    }
}
