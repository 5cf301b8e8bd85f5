import Foundation
import NetTapCapture
import NetTapCore
import NetTapExport
import NetTapServer
import NetTapTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Record real traffic, stop the server, replay it; throttle accuracy and failure draws; redirects
/// and uploads through rules. One suite with RulesCaptureTests' discipline: serialized, rules
/// cleared after each test, every rule scoped to the test's run id.
extension RulesSuites {
@Suite(.serialized) struct RulesReplayTests {
    /// A server whose answers change on every call, so that replay order is visible.
    static func countingServer() throws -> (HTTPServer, Protected<Int>) {
        let counter = Protected(0)
        let server = HTTPServer { request, writer in
            let count = counter.withLock { value -> Int in
                value += 1
                return value
            }
            try writer.respond(status: 200, headers: ["Content-Type": "application/json", "X-Call": String(count)],
                               body: Data(#"{"call":\#(count),"path":"\#(request.path)"}"#.utf8))
        }
        try server.start()
        return (server, counter)
    }

    @Test(arguments: [CaptureVariant.urlProtocol, .session])
    func recordThenReplayWithTheServerStopped(_ variant: CaptureVariant) async throws {
        let directory = try TemporaryDirectory()
        let run = UUID().uuidString
        let har = directory.file("fixtures/session.har")
        let (server, _) = try Self.countingServer()
        let base = server.baseURL.absoluteString
        let script = ["/cart", "/cart", "/cart?page=2", "/profile", "/cart"].map { "\(base)\($0)\($0.contains("?") ? "&" : "?")nettap-run=\(run)" }

        try RulesSuites.RulesCaptureTests.install("""
            {"version": 1, "rules": [{"name": "record", "match": {"query": {"nettap-run": "RUN"}}, "actions": [{"record": {"har": "fixtures/session.har"}}]}]}
            """, run: run, directory: directory)
        var recorded: [Data] = []
        for url in script {
            let fetched = try await RulesSuites.RulesCaptureTests.fetch(URLRequest(url: URL(string: url)!), variant: variant, api: .async)
            #expect(fetched.status == 200)
            recorded.append(fetched.body)
        }
        await NetTap.shared.drain()
        NetTap.shared.rules.clear()
        server.stop()
        let fixtures = try HARReader().decode(contentsOf: har)
        #expect(fixtures.count == script.count, "the HAR holds every recorded exchange")

        try RulesSuites.RulesCaptureTests.install("""
            {"version": 1, "rules": [{"name": "replay", "match": {"query": {"nettap-run": "RUN"}},
              "actions": [{"replay": {"har": "fixtures/session.har", "mode": "strict"}}]}]}
            """, run: run, directory: directory)
        defer { NetTap.shared.rules.clear() }
        for (index, url) in script.enumerated() {
            let fetched = try await RulesSuites.RulesCaptureTests.fetch(URLRequest(url: URL(string: url)!), variant: variant, api: index % 2 == 0 ? .completion : .delegate)
            #expect(fetched.status == 200)
            #expect(fetched.body == recorded[index], "replayed body \(index) differs: \(String(decoding: fetched.body, as: UTF8.self))")
        }
        // The recording had three /cart calls; a fourth misses in strict mode, naming the closest entry.
        let miss = try await RulesSuites.RulesCaptureTests.fetch(URLRequest(url: URL(string: script[0])!), variant: variant, api: .async)
        #expect(miss.status == nil)
        #expect(miss.error?.domain == "NetTap.Replay")
        let message = miss.error?.localizedDescription ?? ""
        #expect(message.contains("/cart"), "the miss names the closest entry: \(message)")
    }

    @Test func replayAnswersFromAHARWrittenByAnotherTool() async throws {
        let directory = try TemporaryDirectory()
        let run = UUID().uuidString
        // Shaped like Chrome DevTools' export: fractional times, browser-only fields, base64 content.
        let har = """
            {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}, "pages": [],
              "entries": [{"_initiator": {"type": "script"}, "_priority": "High", "_resourceType": "fetch",
                "cache": {}, "connection": "1234", "pageref": "page_1", "serverIPAddress": "[::1]",
                "startedDateTime": "2026-11-30T09:15:02.118Z", "time": 42.51,
                "request": {"method": "GET", "url": "http://shop.invalid/api/items?id=3&nettap-run=RUN", "httpVersion": "http/1.1",
                  "headers": [{"name": "Accept", "value": "application/json"}], "queryString": [{"name": "id", "value": "3"}],
                  "cookies": [], "headersSize": -1, "bodySize": 0},
                "response": {"status": 200, "statusText": "OK", "httpVersion": "http/1.1",
                  "headers": [{"name": "content-type", "value": "application/json"}], "cookies": [],
                  "content": {"size": 23, "mimeType": "application/json", "text": "eyJpZCI6MywibmFtZSI6InRlYXBvdCJ9", "encoding": "base64"},
                  "redirectURL": "", "headersSize": -1, "bodySize": 23, "_transferSize": 180},
                "timings": {"blocked": 1.2, "dns": -1, "ssl": -1, "connect": -1, "send": 0.1, "wait": 40.0, "receive": 1.21}}]}}
            """.replacingOccurrences(of: "RUN", with: run)
        try Data(har.utf8).write(to: directory.file("chrome.har"))
        try RulesSuites.RulesCaptureTests.install("""
            {"version": 1, "rules": [{"name": "replay chrome", "match": {"host": "shop.invalid"},
              "actions": [{"replay": {"har": "chrome.har"}}]}]}
            """, run: run, directory: directory)
        defer { NetTap.shared.rules.clear() }
        for variant in [CaptureVariant.urlProtocol, .session] {
            NetTap.shared.rules.clear()
            try RulesSuites.RulesCaptureTests.install("""
                {"version": 1, "rules": [{"name": "replay chrome", "match": {"host": "shop.invalid"},
                  "actions": [{"replay": {"har": "chrome.har"}}]}]}
                """, run: run, directory: directory)
            let fetched = try await RulesSuites.RulesCaptureTests.fetch(
                URLRequest(url: URL(string: "http://shop.invalid/api/items?nettap-run=\(run)&id=3")!), variant: variant, api: .async)
            #expect(fetched.status == 200, "via \(variant): \(fetched.error.map { "\($0)" } ?? "")")
            #expect(String(decoding: fetched.body, as: UTF8.self) == #"{"id":3,"name":"teapot"}"#)
        }
    }

    @Test(arguments: [CaptureVariant.urlProtocol, .session])
    func twoMiBUnderTwoHundredKBPerSecondTakesTheExpectedTime(_ variant: CaptureVariant) async throws {
        let server = try ScenarioServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let run = UUID().uuidString
        _ = CaptureCollector.shared
        try RulesSuites.RulesCaptureTests.install("""
            {"version": 1, "rules": [{"name": "200 KB/s", "match": {"query": {"nettap-run": "RUN"}},
              "actions": [{"throttle": {"downloadBytesPerSecond": 200000}}]}]}
            """, run: run, directory: directory)
        defer { NetTap.shared.rules.clear() }
        let size = 2 * 1_048_576
        let fetched = try await RulesSuites.RulesCaptureTests.fetch(URLRequest(url: server.url("/bytes/\(size)?seed=4&nettap-run=\(run)")), variant: variant, api: .async)
        #expect(fetched.body == ScenarioBytes.bytes(count: size, seed: 4))
        let exchange = try #require(await CaptureCollector.shared.exchanges(run: run).first)
        let expected = Double(size) / 200_000
        let duration = try #require(exchange.duration)
        // NetTap's own start and end timestamps, not a wall clock around the test.
        #expect(duration >= 0.85 * expected && duration <= 1.15 * expected, "took \(duration) s, expected \(expected) s")
    }

    @Test func failureProbabilityOverTwoThousandRequestsIsWithinTheBound() async throws {
        let directory = try TemporaryDirectory()
        let run = UUID().uuidString
        let rules = """
            {"version": 1, "seed": 20261202, "rules": [{"name": "lossy", "match": {"query": {"nettap-run": "RUN"}},
              "actions": [{"throttle": {"failureProbability": 0.3, "failureError": "networkConnectionLost"}}, {"mock": {"status": 204}}]}]}
            """
        func countFailures() async throws -> [Int] {
            try RulesSuites.RulesCaptureTests.install(rules, run: run, directory: directory)
            let configuration = URLSessionConfiguration.ephemeral
            NetTap.enable(on: configuration)
            let session = URLSession(configuration: configuration)
            defer { session.finishTasksAndInvalidate() }
            var failed: [Int] = []
            for index in 0..<2_000 {
                do {
                    _ = try await session.data(from: URL(string: "http://lossy.invalid/ping?n=\(index)&nettap-run=\(run)")!)
                } catch let error as URLError {
                    #expect(error.code == .networkConnectionLost)
                    failed.append(index)
                }
            }
            return failed
        }
        defer { NetTap.shared.rules.clear() }
        let first = try await countFailures()
        // Binomial(2000, 0.3): mean 600, standard deviation 20.5; four sigma either side.
        #expect(first.count >= 518 && first.count <= 682, "\(first.count) failures")
        let second = try await countFailures()
        #expect(first == second, "the same seed fails the same requests")
    }

    @Test func redirectsAreFollowedAfterARewrite() async throws {
        let server = try ScenarioServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let run = UUID().uuidString
        try RulesSuites.RulesCaptureTests.install("""
            {"version": 1, "rules": [{"name": "env", "match": {"host": "old.invalid"},
              "actions": [{"rewrite": {"host": "127.0.0.1", "port": \(server.port)}}]}]}
            """, run: run, directory: directory)
        defer { NetTap.shared.rules.clear() }
        for variant in [CaptureVariant.urlProtocol, .session] {
            for api in RulesSuites.RulesCaptureTests.API.allCases {
                let fetched = try await RulesSuites.RulesCaptureTests.fetch(
                    URLRequest(url: URL(string: "http://old.invalid/redirect/302?to=/bytes/300%3Fseed%3D9&nettap-run=\(run)")!), variant: variant, api: api)
                #expect(fetched.status == 200, "\(variant) \(api)")
                #expect(fetched.body == ScenarioBytes.bytes(count: 300, seed: 9), "\(variant) \(api)")
            }
        }
    }

    @Test func uploadBodiesGoThroughThrottleAndRewrite() async throws {
        let server = try ScenarioServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let run = UUID().uuidString
        _ = CaptureCollector.shared
        try RulesSuites.RulesCaptureTests.install("""
            {"version": 1, "rules": [{"name": "upload env", "match": {"host": "upload.invalid"},
              "actions": [{"rewrite": {"host": "127.0.0.1", "port": \(server.port)}}, {"throttle": {"uploadBytesPerSecond": 400000}}]}]}
            """, run: run, directory: directory)
        defer { NetTap.shared.rules.clear() }
        let body = ScenarioBytes.bytes(count: 200_000, seed: 21)
        var request = URLRequest(url: URL(string: "http://upload.invalid/echo/raw?nettap-run=\(run)")!)
        request.httpMethod = "POST"
        let session = NetTapSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.upload(for: request, from: body)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(data == body, "the server echoed the uploaded bytes")
        #expect(server.receivedRequests(path: "/echo/raw").first?.body == body)
        let exchange = try #require(await CaptureCollector.shared.exchanges(run: run).first)
        #expect(try #require(exchange.duration) >= 0.5, "200,000 B at 400,000 B/s takes half a second")
        #expect(exchange.request.body?.data == body.prefix(NetTap.shared.configuration.bodyCaptureLimit))
    }
}
}
