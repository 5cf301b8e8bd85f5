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

/// Every suite that puts rules in force. Rules are process-wide, so these suites run one test at a
/// time, one suite after the other, and clear the rules after each test; every rule matches only
/// its test's own run id or an invalid host, so other suites' traffic is untouched.
@Suite(.serialized) enum RulesSuites {}

extension RulesSuites {
/// Rules end to end: real loopback traffic, both capture paths, the three task APIs.
@Suite(.serialized) struct RulesCaptureTests {
    enum API: String, CaseIterable, Sendable { case async, completion, delegate }

    struct Fetched {
        var status: Int?
        var headers: [String: String] = [:]
        var body = Data()
        var error: NSError?
    }

    /// Loads `json` (with `RUN` replaced by `run`) as the rules in force.
    static func install(_ json: String, run: String, directory: TemporaryDirectory) throws {
        let file = directory.file("rules.json")
        try Data(json.replacingOccurrences(of: "RUN", with: run).utf8).write(to: file)
        try NetTap.shared.rules.load(contentsOf: file)
    }

    /// Performs `request` through `variant` with `api`.
    static func fetch(_ request: URLRequest, variant: CaptureVariant, api: API) async throws -> Fetched {
        let delegate = RecordingDelegate()
        let client = variant.makeClient(delegate: api == .delegate ? delegate : nil)
        defer { client.finish() }
        var fetched = Fetched()
        func record(_ data: Data?, _ response: URLResponse?, _ error: Error?) {
            fetched.body = data ?? Data()
            if let http = response as? HTTPURLResponse {
                fetched.status = http.statusCode
                for (key, value) in http.allHeaderFields { fetched.headers[(key as? String ?? "").lowercased()] = "\(value)" }
            }
            fetched.error = error.map { $0 as NSError }
        }
        switch api {
        case .async:
            do {
                let (data, response) = try await client.data(for: request)
                record(data, response, nil)
            } catch {
                record(nil, nil, error)
            }
        case .completion:
            let (data, response, error) = await withCheckedContinuation { (continuation: CheckedContinuation<(Data?, URLResponse?, Error?), Never>) in
                client.dataTask(with: request) { continuation.resume(returning: ($0, $1, $2)) }.resume()
            }
            record(data, response, error)
        case .delegate:
            client.dataTask(with: request).resume()
            let result = await delegate.result()
            record(result.data, result.response, result.error)
        }
        return fetched
    }

    static let paths: [CaptureVariant] = [.urlProtocol, .session]

    struct Case: Sendable, CustomStringConvertible {
        var variant: CaptureVariant
        var api: API
        var description: String { "\(variant) \(api)" }
    }

    static let cases: [Case] = paths.flatMap { variant in API.allCases.map { Case(variant: variant, api: $0) } }

    /// The capture of `run` and the modifications it carries.
    static func captured(_ run: String) async throws -> Exchange {
        let exchanges = await CaptureCollector.shared.exchanges(run: run)
        return try #require(exchanges.first, "nothing captured for \(run)")
    }

    @Test(arguments: cases)
    func mockAnswersWithoutTheNetwork(_ testCase: Case) async throws {
        let server = try ScenarioServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let run = UUID().uuidString
        _ = CaptureCollector.shared
        try Self.install("""
            {"version": 1, "rules": [{"name": "mock user", "match": {"query": {"nettap-run": "RUN"}, "path": "/users/*"},
              "actions": [{"mock": {"status": 201, "headers": {"X-Mock": "yes"}, "json": {"id": 7, "mocked": true}}}]}]}
            """, run: run, directory: directory)
        defer { NetTap.shared.rules.clear() }
        let fetched = try await Self.fetch(URLRequest(url: server.url("/users/7?nettap-run=\(run)")), variant: testCase.variant, api: testCase.api)
        #expect(fetched.error == nil)
        #expect(fetched.status == 201)
        #expect(fetched.headers["x-mock"] == "yes")
        #expect(try JSONSerialization.jsonObject(with: fetched.body) as? NSDictionary == ["id": 7, "mocked": true])
        #expect(server.receivedRequests(path: "/users/7").isEmpty, "a mocked request reached the server")
        let exchange = try await Self.captured(run)
        #expect(exchange.response?.statusCode == 201)
        #expect(exchange.modifications.map(\.action) == ["mock"])
        #expect(exchange.modifications.first?.rule == "mock user")
    }

    @Test(arguments: cases)
    func mapLocalServesFilesFromADirectory(_ testCase: Case) async throws {
        let server = try ScenarioServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: directory.file("bundle/css"), withIntermediateDirectories: true)
        try Data("body { color: teal }".utf8).write(to: directory.file("bundle/css/app.css"))
        let run = UUID().uuidString
        _ = CaptureCollector.shared
        try Self.install("""
            {"version": 1, "rules": [{"name": "offline bundle", "match": {"query": {"nettap-run": "RUN"}},
              "actions": [{"mapLocal": {"directory": "bundle", "pathPrefix": "/app/"}}]}]}
            """, run: run, directory: directory)
        defer { NetTap.shared.rules.clear() }
        let fetched = try await Self.fetch(URLRequest(url: server.url("/app/css/app.css?nettap-run=\(run)")), variant: testCase.variant, api: testCase.api)
        #expect(fetched.status == 200)
        #expect(String(decoding: fetched.body, as: UTF8.self) == "body { color: teal }")
        #expect(fetched.headers["content-type"]?.hasPrefix("text/css") == true)
        let missing = try await Self.fetch(URLRequest(url: server.url("/app/nope.js?nettap-run=\(run)")), variant: testCase.variant, api: testCase.api)
        #expect(missing.status == 404)
        #expect(server.receivedRequests.isEmpty)
        let exchange = try await Self.captured(run)
        #expect(exchange.modifications.first?.action == "mapLocal")
    }

    @Test(arguments: cases)
    func rewriteSwitchesEnvironmentAndKeepsTheBody(_ testCase: Case) async throws {
        let server = try ScenarioServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let run = UUID().uuidString
        _ = CaptureCollector.shared
        // The app talks to a production host that does not exist; the rule sends it to the loopback server.
        try Self.install("""
            {"version": 1, "rules": [{"name": "to staging", "match": {"host": "api.production.invalid", "query": {"nettap-run": "RUN"}},
              "actions": [{"rewrite": {"scheme": "http", "host": "127.0.0.1", "port": \(server.port), "path": {"regex": "^/v1/(.*)$", "replace": "/$1"}}},
                          {"headers": {"request": {"set": {"X-Environment": "staging"}}, "response": {"add": {"X-Served-By": "nettap"}}}}]}]}
            """, run: run, directory: directory)
        defer { NetTap.shared.rules.clear() }
        var request = URLRequest(url: URL(string: "http://api.production.invalid/v1/echo?nettap-run=\(run)")!)
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"order":42}"#.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let fetched = try await Self.fetch(request, variant: testCase.variant, api: testCase.api)
        #expect(fetched.error == nil, "\(fetched.error.map { "\($0)" } ?? "")")
        #expect(fetched.status == 200)
        #expect(fetched.headers["x-served-by"] == "nettap")
        let received = try #require(server.receivedRequests(path: "/echo").first, "the rewritten request did not arrive")
        #expect(received.method == "POST")
        #expect(received.body == Data(#"{"order":42}"#.utf8))
        #expect(received.headers["X-Environment"] == "staging")
        let echo = try JSONDecoder().decode(ScenarioEcho.self, from: fetched.body)
        #expect(echo.method == "POST")
        let exchange = try await Self.captured(run)
        #expect(exchange.request.url.hasPrefix("http://api.production.invalid/v1/echo"), "the capture keeps the URL the app asked for")
        #expect(Set(exchange.modifications.map(\.action)) == ["rewrite", "headers"])
    }

    @Test(arguments: cases)
    func blockFailsWithTheChosenError(_ testCase: Case) async throws {
        let server = try ScenarioServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let run = UUID().uuidString
        _ = CaptureCollector.shared
        try Self.install("""
            {"version": 1, "rules": [{"name": "no trackers", "match": {"query": {"nettap-run": "RUN"}, "path": "/track/**"},
              "actions": [{"block": {"error": "notConnectedToInternet"}}]}]}
            """, run: run, directory: directory)
        defer { NetTap.shared.rules.clear() }
        let fetched = try await Self.fetch(URLRequest(url: server.url("/track/event?nettap-run=\(run)")), variant: testCase.variant, api: testCase.api)
        #expect(fetched.error?.domain == NSURLErrorDomain)
        #expect(fetched.error?.code == NSURLErrorNotConnectedToInternet)
        #expect(fetched.status == nil)
        #expect(server.receivedRequests.isEmpty)
        let exchange = try await Self.captured(run)
        #expect(exchange.error?.code == NSURLErrorNotConnectedToInternet)
        #expect(exchange.modifications.first?.action == "block")
    }

    @Test(arguments: cases)
    func throttleAddsLatencyMeasuredByNetTap(_ testCase: Case) async throws {
        let server = try ScenarioServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let run = UUID().uuidString
        _ = CaptureCollector.shared
        try Self.install("""
            {"version": 1, "rules": [{"name": "slow", "match": {"query": {"nettap-run": "RUN"}},
              "actions": [{"throttle": {"latency": 0.4, "downloadBytesPerSecond": 200000}}]}]}
            """, run: run, directory: directory)
        defer { NetTap.shared.rules.clear() }
        let fetched = try await Self.fetch(URLRequest(url: server.url("/bytes/40000?seed=3&nettap-run=\(run)")), variant: testCase.variant, api: testCase.api)
        #expect(fetched.status == 200)
        #expect(fetched.body == ScenarioBytes.bytes(count: 40000, seed: 3))
        let exchange = try await Self.captured(run)
        // 0.4 s latency + 40,000 B at 200,000 B/s = 0.6 s at least, by NetTap's own clock.
        let duration = try #require(exchange.duration)
        #expect(duration >= 0.6, "throttled exchange took \(duration) s")
        #expect(exchange.modifications.first?.action == "throttle")
    }
}
}
