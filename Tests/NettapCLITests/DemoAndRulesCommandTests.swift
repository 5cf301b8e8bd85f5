import Foundation
import NetTapTestSupport
import Testing

/// `nettap demo`, `nettap rules check`, `nettap fetch --rules` and `--via shared`, through the built binary.
@Suite struct DemoAndRulesCommandTests {
    @Test func demoCapturesEveryKindOfCallThroughBothPaths() throws {
        let result = try Nettap.succeed(["demo", "--no-store", "--json"])
        let exchanges = try #require(try result.json() as? [[String: Any]])
        func paths(_ exchange: [String: Any]) -> String { exchange["capturePath"] as? String ?? "" }
        func url(_ exchange: [String: Any]) -> String { (exchange["request"] as? [String: Any])?["url"] as? String ?? "" }
        func status(_ exchange: [String: Any]) -> Int? { (exchange["response"] as? [String: Any])?["status"] as? Int }
        func error(_ exchange: [String: Any]) -> String? { (exchange["error"] as? [String: Any])?["category"] as? String }
        func actions(_ exchange: [String: Any]) -> [String] {
            (exchange["modifications"] as? [[String: Any]] ?? []).compactMap { $0["action"] as? String }
        }
        #expect(Set(exchanges.map(paths)) == ["session", "protocol"])
        #expect(exchanges.contains { status($0) == 404 })
        #expect(exchanges.contains { status($0) == 500 })
        #expect(exchanges.contains { error($0) == "timeout" })
        #expect(exchanges.contains { !(($0["redirects"] as? [Any]) ?? []).isEmpty }, "a redirect")
        let streamed = try #require(exchanges.first { url($0).hasSuffix("/api/orders") })
        #expect((streamed["request"] as? [String: Any])?["method"] as? String == "POST")
        #expect(((streamed["request"] as? [String: Any])?["body"] as? [String: Any])?["size"] as? Int == #"{"items":[{"id":1,"quantity":2}],"note":"gift wrap"}"#.utf8.count, "the streamed body was captured")
        let ruled = Set(exchanges.flatMap(actions))
        #expect(ruled.isSuperset(of: ["mock", "rewrite", "throttle", "replay"]), "rules shown: \(ruled)")
        let login = try #require(exchanges.first { url($0).hasSuffix("/api/login") })
        let loginText = String(decoding: try JSONSerialization.data(withJSONObject: login), as: UTF8.self)
        #expect(!loginText.contains("lovelace") && !loginText.contains("tok_5f2b9c") && !loginText.contains("s3cr3t"), "secrets redacted")
    }

    @Test func demoKeepsItsCapturesInTheStore() throws {
        let directory = try TemporaryDirectory(prefix: "nettap-demo")
        let store = directory.file("demo.sqlite").path
        let result = try Nettap.succeed(["demo", "--store", store])
        #expect(result.stdout.contains("kept in \(store)"))
        #expect(try Nettap.count(store: store) == 13)
    }

    @Test func rulesCheckPrintsTheRulesOrThePosition() throws {
        let directory = try TemporaryDirectory(prefix: "nettap-rules")
        let good = directory.file("good.json")
        try Data(#"{"version": 1, "rules": [{"name": "offline", "match": {"path": "/v1/**"}, "actions": [{"block": {"error": "notConnectedToInternet"}}]}]}"#.utf8).write(to: good)
        let ok = try Nettap.succeed(["rules", "check", good.path])
        #expect(ok.lines.first == "\(good.path): 1 rule OK")
        #expect(ok.lines.dropFirst().first?.hasPrefix("#0 \"offline\": ") == true)

        let bad = directory.file("bad.json")
        try Data("{\"version\": 1, \"rules\": [\n  {\"match\": {\"method\": 7}, \"actions\": [{\"mock\": {}}]}\n]}".utf8).write(to: bad)
        let failed = try Nettap.run(["rules", "check", bad.path])
        #expect(failed.status == .exited(1))
        #expect(failed.stderr.contains("\(bad.path):2:"), "the line is named: \(failed.stderr)")
        #expect(failed.stderr.contains("match.method"), "the field is named: \(failed.stderr)")
    }

    @Test func fetchAppliesARulesFile() throws {
        let directory = try TemporaryDirectory(prefix: "nettap-rules")
        let rules = directory.file("rules.json")
        try Data(#"{"version": 1, "rules": [{"name": "mock it", "match": {"host": "api.example.invalid"}, "actions": [{"mock": {"status": 200, "text": "from a rule"}}]}]}"#.utf8).write(to: rules)
        for via in ["session", "protocol"] {
            let json = directory.file("exchanges-\(via).json")
            let result = try Nettap.succeed(["fetch", "--no-store", "--via", via, "--rules", rules.path, "--exchange-json", json.path, "http://api.example.invalid/x"])
            #expect(result.stdout == "from a rule")
            let exchanges = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [[String: Any]])
            #expect((exchanges.first?["modifications"] as? [[String: Any]])?.first?["rule"] as? String == "mock it")
        }
    }

    @Test func sharedSessionIsCapturedWhenRegisteredAtLaunch() throws {
        let server = try ScenarioServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory(prefix: "nettap-shared")
        let json = directory.file("shared.json")
        let result = try Nettap.succeed(["fetch", "--no-store", "--via", "shared", "--exchange-json", json.path, server.url("/bytes/64?seed=1").absoluteString])
        #expect(!result.stderr.contains("warning"), "\(result.stderr)")
        let exchanges = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [[String: Any]])
        #expect(exchanges.count == 1)
        #expect(exchanges.first?["capturePath"] as? String == "protocol")
        #expect((exchanges.first?["response"] as? [String: Any])?["bodySize"] as? Int == 64)
    }
}
