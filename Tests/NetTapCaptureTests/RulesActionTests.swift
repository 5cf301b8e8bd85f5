import Foundation
import NetTapCapture
import NetTapCore
import NetTapRules
import NetTapTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Each action's less common forms end to end, on real loopback traffic through both capture paths:
/// uploads through rewrite and throttle with every upload API, header edits alone, a mock's delay and
/// header edits, block by status, a single mapped file, query edits and host-to-IP, a forced timeout.
extension RulesSuites {
@Suite(.serialized) struct RulesActionTests {
    typealias Case = RulesSuites.RulesCaptureTests.Case

    static let cases = RulesSuites.RulesCaptureTests.cases

    static func install(_ json: String, run: String, directory: TemporaryDirectory) throws {
        try RulesSuites.RulesCaptureTests.install(json, run: run, directory: directory)
    }

    static func fetch(_ request: URLRequest, _ testCase: Case) async throws -> RulesSuites.RulesCaptureTests.Fetched {
        try await RulesSuites.RulesCaptureTests.fetch(request, variant: testCase.variant, api: testCase.api)
    }

    static func captured(_ run: String) async throws -> Exchange {
        try await RulesSuites.RulesCaptureTests.captured(run)
    }

    // MARK: Uploads

    enum UploadAPI: String, CaseIterable, Sendable { case async, completion, delegate, file }

    struct UploadCase: Sendable, CustomStringConvertible {
        var variant: CaptureVariant
        var api: UploadAPI
        var description: String { "\(variant) upload \(api)" }
    }

    static let uploadCases: [UploadCase] = [CaptureVariant.urlProtocol, .session].flatMap { variant in
        UploadAPI.allCases.map { UploadCase(variant: variant, api: $0) }
    }

    /// An upload to a host that does not exist is rewritten to the loopback server and paced by an
    /// upload limit: the server gets every byte, and NetTap's own timestamps show the pacing.
    @Test(arguments: uploadCases)
    func uploadBodiesGoThroughRewriteAndThrottle(_ testCase: UploadCase) async throws {
        let server = try ScenarioServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let run = UUID().uuidString
        _ = CaptureCollector.shared
        try Self.install("""
            {"version": 1, "rules": [{"name": "upload env", "match": {"host": "upload.invalid", "query": {"nettap-run": "RUN"}},
              "actions": [{"rewrite": {"host": "127.0.0.1", "port": \(server.port)}}, {"throttle": {"uploadBytesPerSecond": 400000}}]}]}
            """, run: run, directory: directory)
        defer { NetTap.shared.rules.clear() }
        let body = ScenarioBytes.bytes(count: 200_000, seed: 31)
        var request = URLRequest(url: URL(string: "http://upload.invalid/echo/raw?nettap-run=\(run)")!)
        request.httpMethod = "PUT"
        let delegate = RecordingDelegate()
        let client = testCase.variant.makeClient(delegate: testCase.api == .delegate ? delegate : nil)
        defer { client.finish() }

        var status: Int?
        var echoed = Data()
        switch testCase.api {
        case .async:
            let (data, response) = try await client.upload(for: request, from: body)
            (status, echoed) = ((response as? HTTPURLResponse)?.statusCode, data)
        case .completion, .file:
            let file = directory.file("upload.bin")
            try body.write(to: file)
            let (data, response, error) = await withCheckedContinuation { (continuation: CheckedContinuation<(Data?, URLResponse?, Error?), Never>) in
                let handler: @Sendable (Data?, URLResponse?, Error?) -> Void = { continuation.resume(returning: ($0, $1, $2)) }
                if testCase.api == .file {
                    client.uploadTask(with: request, fromFile: file, completion: handler).resume()
                } else {
                    client.uploadTask(with: request, from: body, completion: handler).resume()
                }
            }
            #expect(error == nil, "\(testCase): \(error.map { "\($0)" } ?? "")")
            (status, echoed) = ((response as? HTTPURLResponse)?.statusCode, data ?? Data())
        case .delegate:
            client.uploadTask(with: request, from: body).resume()
            let result = await delegate.result()
            #expect(result.error == nil, "\(testCase): \(result.error.map { "\($0)" } ?? "")")
            (status, echoed) = ((result.response as? HTTPURLResponse)?.statusCode, result.data)
        }
        #expect(status == 200, "\(testCase)")
        #expect(echoed == body, "\(testCase): the server echoed \(echoed.count) bytes")
        #expect(server.receivedRequests(path: "/echo/raw").map(\.body) == [body], "\(testCase): the server got the body once, whole")

        let exchange = try await Self.captured(run)
        #expect(Set(exchange.modifications.map(\.action)) == ["rewrite", "throttle"], "\(testCase): \(exchange.modifications)")
        let duration = try #require(exchange.duration)
        // 200,000 B at 400,000 B/s is half a second before the request goes out (NetTap's own clock).
        #expect(duration >= 0.5 * 0.85 && duration <= 10, "\(testCase): took \(duration) s")
        let captured = try #require(exchange.request.body, "\(testCase): no request body recorded")
        #expect(captured.unavailableReason == nil, "\(testCase): \(captured.unavailableReason ?? "")")
        #expect(captured.size == Int64(body.count))
        #expect(captured.data == body)
    }

    // MARK: Headers, mock, block, mapLocal

    @Test(arguments: cases)
    func headerEditsAloneChangeWhatServerAndAppSee(_ testCase: Case) async throws {
        let server = try ScenarioServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let run = UUID().uuidString
        _ = CaptureCollector.shared
        try Self.install("""
            {"version": 1, "rules": [{"name": "edit headers", "match": {"query": {"nettap-run": "RUN"}},
              "actions": [{"headers": {
                "request": {"set": {"X-Env": "qa"}, "add": {"X-Trace": ["t1", "t2"]}, "remove": ["X-Remove-Me"]},
                "response": {"set": {"X-Served-By": "nettap"}, "remove": ["Content-Type"]}}}]}]}
            """, run: run, directory: directory)
        defer { NetTap.shared.rules.clear() }
        var request = URLRequest(url: server.url("/echo?nettap-run=\(run)"))
        request.setValue("1", forHTTPHeaderField: "X-Remove-Me")
        request.setValue("prod", forHTTPHeaderField: "X-Env")
        let fetched = try await Self.fetch(request, testCase)
        #expect(fetched.status == 200, "\(testCase): \(fetched.error.map { "\($0)" } ?? "")")
        let echo = try JSONDecoder().decode(ScenarioEcho.self, from: fetched.body)
        #expect(echo.header("X-Env") == "qa", "\(testCase)")
        #expect(HTTPHeaders(echo.headers).values(for: "X-Trace").joined(separator: ",").replacingOccurrences(of: " ", with: "") == "t1,t2", "\(testCase): \(echo.headers)")
        #expect(echo.header("X-Remove-Me") == nil, "\(testCase)")
        #expect(fetched.headers["x-served-by"] == "nettap", "\(testCase)")
        #expect(fetched.headers["content-type"] == nil, "\(testCase): \(fetched.headers)")
        let exchange = try await Self.captured(run)
        #expect(exchange.modifications.map(\.rule) == ["edit headers"])
        #expect(exchange.modifications.map(\.action) == ["headers"])
    }

    @Test(arguments: cases)
    func aMockWaitsItsDelayAndTakesResponseHeaderEdits(_ testCase: Case) async throws {
        let directory = try TemporaryDirectory()
        let run = UUID().uuidString
        _ = CaptureCollector.shared
        try Self.install("""
            {"version": 1, "rules": [
              {"name": "late mock", "match": {"query": {"nettap-run": "RUN"}},
               "actions": [{"headers": {"response": {"set": {"Cache-Control": "no-store"}, "remove": ["X-Internal"]}}},
                           {"mock": {"status": 202, "headers": {"X-Internal": "1", "X-Kept": "yes"}, "text": "later", "delay": 0.4}}]}]}
            """, run: run, directory: directory)
        defer { NetTap.shared.rules.clear() }
        let fetched = try await Self.fetch(URLRequest(url: URL(string: "http://mock.invalid/slow?nettap-run=\(run)")!), testCase)
        #expect(fetched.status == 202, "\(testCase): \(fetched.error.map { "\($0)" } ?? "")")
        #expect(String(decoding: fetched.body, as: UTF8.self) == "later")
        #expect(fetched.headers["cache-control"] == "no-store")
        #expect(fetched.headers["x-kept"] == "yes")
        #expect(fetched.headers["x-internal"] == nil)
        let exchange = try await Self.captured(run)
        let duration = try #require(exchange.duration)
        #expect(duration >= 0.4 * 0.85 && duration <= 10, "\(testCase): a 0.4 s mock took \(duration) s")
        #expect(exchange.modifications.map(\.action) == ["headers", "mock"])
    }

    @Test(arguments: cases)
    func blockAnswersWithTheChosenStatus(_ testCase: Case) async throws {
        let server = try ScenarioServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let run = UUID().uuidString
        _ = CaptureCollector.shared
        try Self.install("""
            {"version": 1, "rules": [{"name": "legal hold", "match": {"query": {"nettap-run": "RUN"}, "path": "/export/**"},
              "actions": [{"block": {"status": 451}}]}]}
            """, run: run, directory: directory)
        defer { NetTap.shared.rules.clear() }
        let fetched = try await Self.fetch(URLRequest(url: server.url("/export/all?nettap-run=\(run)")), testCase)
        #expect(fetched.status == 451, "\(testCase): \(fetched.error.map { "\($0)" } ?? "")")
        #expect(fetched.body.isEmpty)
        #expect(server.receivedRequests.isEmpty, "\(testCase): a blocked request reached the server")
        let exchange = try await Self.captured(run)
        #expect(exchange.response?.statusCode == 451)
        #expect(exchange.modifications.map(\.action) == ["block"])
        #expect(exchange.modifications.first?.rule == "legal hold")
    }

    @Test(arguments: cases)
    func mapLocalServesOneFileForEveryMatchingRequest(_ testCase: Case) async throws {
        let directory = try TemporaryDirectory()
        let run = UUID().uuidString
        _ = CaptureCollector.shared
        let config = Data(#"{"feature":"on","run":"\#(run)"}"#.utf8)
        try FileManager.default.createDirectory(at: directory.file("fixtures"), withIntermediateDirectories: true)
        try config.write(to: directory.file("fixtures/config.json"))
        try Self.install("""
            {"version": 1, "rules": [{"name": "config from disk", "match": {"query": {"nettap-run": "RUN"}, "path": "/v1/config"},
              "actions": [{"mapLocal": {"file": "fixtures/config.json", "headers": {"Cache-Control": "no-store"}}}]}]}
            """, run: run, directory: directory)
        defer { NetTap.shared.rules.clear() }
        let fetched = try await Self.fetch(URLRequest(url: URL(string: "http://config.invalid/v1/config?nettap-run=\(run)")!), testCase)
        #expect(fetched.status == 200, "\(testCase): \(fetched.error.map { "\($0)" } ?? "")")
        #expect(fetched.body == config)
        #expect(fetched.headers["content-type"]?.hasPrefix("application/json") == true, "\(testCase): \(fetched.headers)")
        #expect(fetched.headers["cache-control"] == "no-store")
        let exchange = try await Self.captured(run)
        #expect(exchange.modifications.map(\.action) == ["mapLocal"])
        #expect(exchange.response?.body?.data == config)
    }

    // MARK: Rewrites

    /// `hostToIP` sends a named host's request to a fixed address with the original `Host` header,
    /// and query edits change only the items they name.
    @Test(arguments: cases)
    func hostToIPKeepsTheHostHeaderAndQueryEditsKeepTheRest(_ testCase: Case) async throws {
        let server = try ScenarioServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let run = UUID().uuidString
        _ = CaptureCollector.shared
        try Self.install("""
            {"version": 1, "rules": [{"name": "pin api", "match": {"host": "api.pinned.invalid", "query": {"nettap-run": "RUN"}},
              "actions": [{"rewrite": {"hostToIP": "127.0.0.1", "query": {"set": {"mode": "test"}, "remove": ["drop"], "add": {"tag": "x"}}}}]}]}
            """, run: run, directory: directory)
        defer { NetTap.shared.rules.clear() }
        let url = URL(string: "http://api.pinned.invalid:\(server.port)/echo?keep=a%20b&drop=2&mode=live&nettap-run=\(run)")!
        let fetched = try await Self.fetch(URLRequest(url: url), testCase)
        #expect(fetched.status == 200, "\(testCase): \(fetched.error.map { "\($0)" } ?? "")")
        let echo = try JSONDecoder().decode(ScenarioEcho.self, from: fetched.body)
        #expect(echo.header("Host") == "api.pinned.invalid:\(server.port)", "\(testCase): Host \(echo.header("Host") ?? "none")")
        #expect(echo.query == "keep=a%20b&mode=test&nettap-run=\(run)&tag=x", "\(testCase): query \(echo.query ?? "none")")
        let exchange = try await Self.captured(run)
        #expect(exchange.modifications.map(\.action) == ["rewrite"])
        #expect(exchange.request.url == url.absoluteString, "the capture keeps the URL the app asked for")
    }

    // MARK: Forced timeout

    /// A throttle's `timeout` fails a request that is still running with `timedOut`, and the
    /// request's own loader stops: the app gets exactly one outcome, and the next request is fine.
    @Test(arguments: cases)
    func aForcedTimeoutFailsASlowRequest(_ testCase: Case) async throws {
        let server = try ScenarioServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let run = UUID().uuidString
        _ = CaptureCollector.shared
        try Self.install("""
            {"version": 1, "rules": [{"name": "impatient", "match": {"query": {"nettap-run": "RUN"}, "path": "/delay/*"},
              "actions": [{"throttle": {"timeout": 1}}]}]}
            """, run: run, directory: directory)
        defer { NetTap.shared.rules.clear() }
        let fetched = try await Self.fetch(URLRequest(url: server.url("/delay/6000?nettap-run=\(run)")), testCase)
        #expect(fetched.status == nil, "\(testCase)")
        #expect(fetched.error?.domain == NSURLErrorDomain && fetched.error?.code == NSURLErrorTimedOut, "\(testCase): \(fetched.error.map { "\($0)" } ?? "none")")
        let exchange = try await Self.captured(run)
        #expect(exchange.error?.category == .timeout)
        let duration = try #require(exchange.duration)
        #expect(duration >= 0.85 && duration < 5, "\(testCase): the 1 s timeout came after \(duration) s")
        #expect(exchange.modifications.map(\.action) == ["throttle"])
        // The same path carries the next request normally.
        let after = try await Self.fetch(URLRequest(url: server.url("/bytes/64?seed=3&nettap-run=\(run)")), testCase)
        #expect(after.status == 200 && after.body == ScenarioBytes.bytes(count: 64, seed: 3), "\(testCase): the next request")
    }

    // MARK: Proxy rules built in code

    @Test func aProxyRuleBuiltInCodeIsNeverSilentlyIgnored() throws {
        let directory = try TemporaryDirectory()
        let run = UUID().uuidString
        try Self.install("""
            {"version": 1, "rules": [{"name": "before", "match": {"query": {"nettap-run": "RUN"}}, "actions": [{"block": {"status": 418}}]}]}
            """, run: run, directory: directory)
        defer { NetTap.shared.rules.clear() }
        let before = NetTap.shared.rules.current
        let proxied = RuleSet(rules: [
            Rule(name: "corp", match: RuleMatch(hosts: [try HostPattern("*.corp.invalid")]),
                 actions: [.proxy(ProxyTarget(host: "proxy.corp.invalid", port: 3128, kind: .http))]),
        ])
        #if canImport(Darwin)
        try NetTap.shared.rules.install(proxied)
        #expect(NetTap.shared.rules.current.rules.count == 1)
        #else
        do {
            try NetTap.shared.rules.install(proxied)
            Issue.record("a proxy rule was put in force on Linux, where it would be ignored")
        } catch {
            #expect("\(error)" == "rule \"corp\": " + RulesPlatform.proxyUnsupportedMessage)
        }
        #expect(NetTap.shared.rules.current.description == before.description, "the rules in force before stay in force")
        #endif
    }
}
}
