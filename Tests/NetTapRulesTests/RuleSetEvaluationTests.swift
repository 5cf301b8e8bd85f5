import Foundation
import NetTapCore
import Testing
import NetTapRules

@Suite struct RuleSetEvaluationTests {
    @Test func modifiersOfEarlierRulesApplyBeforeTheTerminalWinner() throws {
        let rules = try ruleSet(
            """
            {"version": 1, "rules": [
              {"name": "env", "match": {"host": "api.example.com"}, "actions": [
                {"rewrite": {"host": "staging.example.com"}},
                {"headers": {"request": {"set": {"X-Env": "staging"}}}}]},
              {"name": "slow", "match": {}, "actions": [{"throttle": {"latency": 0.2}}]},
              {"name": "users", "match": {"path": "/v1/users"}, "actions": [
                {"headers": {"response": {"add": {"X-Mocked": "yes"}}}},
                {"mock": {"status": 201, "text": "ok"}},
                {"headers": {"request": {"remove": ["Cookie"]}}}]},
              {"name": "never", "match": {}, "actions": [{"block": {"status": 500}}]}
            ]}
            """)
        let decision = rules.evaluate(request("GET", "https://api.example.com/v1/users"))
        #expect(decision.matchedRules == [0, 1, 2])
        #expect(decision.url?.absoluteString == "https://staging.example.com/v1/users")
        #expect(decision.requestHeaderEdits == [.set(name: "X-Env", value: "staging"), .remove(name: "Cookie")])
        #expect(decision.responseHeaderEdits == [.add(name: "X-Mocked", value: "yes")])
        #expect(decision.throttle?.latency == 0.2)
        guard case .mock(let response) = decision.terminal else {
            Issue.record("expected a mock, got \(decision.terminal)")
            return
        }
        #expect(response.statusCode == 201)
        #expect(response.body == Data("ok".utf8))
        #expect(
            decision.modifications == [
                ExchangeModification(rule: "env", action: "rewrite", detail: "host api.example.com -> staging.example.com"),
                ExchangeModification(rule: "env", action: "headers", detail: "request set X-Env: staging"),
                ExchangeModification(rule: "slow", action: "throttle", detail: "latency 0.2 s"),
                ExchangeModification(rule: "users", action: "headers", detail: "response add X-Mocked: yes"),
                ExchangeModification(rule: "users", action: "headers", detail: "request remove Cookie"),
                ExchangeModification(rule: "users", action: "mock", detail: "status 201, 2 bytes (text)"),
            ])
    }

    @Test func firstTerminalWinsAndLaterRulesAreNotLookedAt() throws {
        let rules = try ruleSet(
            """
            {"version": 1, "rules": [
              {"match": {"method": "POST"}, "actions": [{"block": {"error": "timedOut"}}]},
              {"match": {}, "actions": [{"block": {"status": 451}}]},
              {"match": {}, "actions": [{"headers": {"request": {"add": {"X-Late": "1"}}}}]}
            ]}
            """)
        let get = rules.evaluate(request("GET", "https://a.com/"))
        #expect(get.terminal == .block(.status(451)))
        #expect(get.matchedRules == [1])
        #expect(get.requestHeaderEdits.isEmpty)
        #expect(get.modifications == [ExchangeModification(rule: "#1", action: "block", detail: "with status 451")])
        let post = rules.evaluate(request("POST", "https://a.com/"))
        #expect(post.terminal == .block(.fail(.timedOut)))
        #expect(post.modifications.map(\.detail) == ["with error timedOut (-1001)"])
    }

    @Test func noMatchIsAnEmptyDecision() throws {
        let rules = try ruleSet(#"{"version": 1, "rules": [{"match": {"host": "a.com"}, "actions": [{"block": {"status": 403}}]}]}"#)
        let decision = rules.evaluate(request("GET", "https://b.com/"))
        #expect(decision.isEmpty)
        #expect(decision.terminal == .none)
        #expect(decision.url == nil)
        #expect(decision.modifications.isEmpty)
        #expect(RuleSet.empty.evaluate(request("GET", "https://b.com/")).isEmpty)
    }

    @Test func disabledRulesNeverMatch() throws {
        let rules = try ruleSet(
            #"{"version": 1, "rules": [{"enabled": false, "match": {}, "actions": [{"block": {"status": 403}}]}]}"#)
        #expect(rules.evaluate(request("GET", "https://b.com/")).isEmpty)
        #expect(rules.rules.count == 1)
        #expect(rules.description == "#0: when every request: block with status 403 (disabled)")
    }

    @Test func rewritesComposeInOrder() throws {
        let rules = try ruleSet(
            """
            {"version": 1, "rules": [
              {"match": {}, "actions": [{"rewrite": {"scheme": "http", "host": "localhost", "port": 8080}}]},
              {"match": {}, "actions": [{"rewrite": {"path": {"regex": "^/v1/", "replace": "/v2/"}}}]}
            ]}
            """)
        let decision = rules.evaluate(request("GET", "https://api.example.com/v1/items?a=1"))
        #expect(decision.url?.absoluteString == "http://localhost:8080/v2/items?a=1")
        #expect(decision.modifications.map(\.detail) == [
            "scheme https -> http; host api.example.com -> localhost; port default -> 8080", "path /v1/items -> /v2/items",
        ])
    }

    @Test func throttlesMergeFieldByFieldLaterWins() throws {
        let rules = try ruleSet(
            """
            {"version": 1, "rules": [
              {"match": {}, "actions": [{"throttle": {"preset": "3g"}}]},
              {"match": {"path": "/big"}, "actions": [{"throttle": {"downloadBytesPerSecond": 1000, "timeout": 30}}]}
            ]}
            """)
        let decision = rules.evaluate(request("GET", "https://a.com/big"))
        let profile = try #require(decision.throttle)
        #expect(profile.latency == 0.1)
        #expect(profile.uploadBytesPerSecond == 41_250)
        #expect(profile.downloadBytesPerSecond == 1000)
        #expect(profile.forcedTimeout == 30)
    }

    @Test func proxyAndRecordTargetsAreCollected() throws {
        let directory = URL(fileURLWithPath: "/srv/rules")
        let rules = try ruleSet(
            """
            {"version": 1, "rules": [
              {"name": "corp", "match": {"host": "*.corp.example"}, "actions": [{"proxy": {"host": "proxy.local", "port": 3128}}]},
              {"match": {}, "actions": [{"record": {"har": "out/session.har"}}, {"record": {"har": "/var/all.har"}}]}
            ]}
            """, directory: directory)
        let decision = rules.evaluate(request("GET", "https://git.corp.example/"))
        #expect(decision.proxy == ProxyTarget(host: "proxy.local", port: 3128, kind: .http))
        #expect(decision.recordTargets.map(\.harFile.path) == ["/srv/rules/out/session.har", "/var/all.har"])
        #expect(decision.terminal == .none)
        #expect(decision.modifications.map(\.action) == ["proxy", "record", "record"])
    }

    @Test func hostIndexKeepsRuleOrderAcrossExactWildcardAndHostlessRules() throws {
        // Rules for the same host filed under different index lists must still apply in file order.
        let rules = try ruleSet(
            """
            {"version": 1, "rules": [
              {"match": {"host": "*.example.com"}, "actions": [{"headers": {"request": {"add": {"X-Order": "0"}}}}]},
              {"match": {"host": "other.net"}, "actions": [{"headers": {"request": {"add": {"X-Order": "no"}}}}]},
              {"match": {}, "actions": [{"headers": {"request": {"add": {"X-Order": "2"}}}}]},
              {"match": {"host": ["api.example.com", "*.api.example.com"]}, "actions": [{"headers": {"request": {"add": {"X-Order": "3"}}}}]},
              {"match": {"host": "*.api.example.com"}, "actions": [{"headers": {"request": {"add": {"X-Order": "4"}}}}]},
              {"match": {"method": "GET"}, "actions": [{"headers": {"request": {"add": {"X-Order": "5"}}}}]}
            ]}
            """)
        let decision = rules.evaluate(request("GET", "https://api.example.com/"))
        #expect(decision.matchedRules == [0, 2, 3, 4, 5])
        var headers = HTTPHeaders()
        decision.requestHeaderEdits.apply(to: &headers)
        #expect(headers.values(for: "X-Order") == ["0", "2", "3", "4", "5"])
        #expect(rules.evaluate(request("GET", "https://other.net/")).matchedRules == [1, 2, 5])
    }

    @Test func indexedEvaluationAgreesWithMatchingEveryRule() throws {
        // Many rules of every kind against many requests: the index and prefilter must never
        // change which rules match compared with checking each rule's match in full.
        let rules = (0..<64).map { index in
            let hosts = ["a.com", "*.a.com", "b.org", "*.b.org", nil][index % 5]
            let paths = ["/x/*", "/x/**", "/y", "/x/*.png", nil][index / 5 % 5]
            let methods = [["GET"], ["POST", "PROPFIND"], []][index % 3]
            return Rule(
                match: RuleMatch(
                    methods: methods, hosts: hosts.flatMap { try? HostPattern($0) }.map { [$0] } ?? [],
                    path: paths.flatMap { try? PathGlob($0) }.map { .glob($0) }),
                actions: [.headers(HeaderAction(request: [.add(name: "R", value: String(index))]))])
        }
        let set = RuleSet(rules: rules)
        let urls = [
            "https://a.com/x/1", "https://w.a.com/x/1/2", "http://b.org/y", "https://z.b.org/x/i.png", "https://c.net/",
            "https://a.com/", "https://b.org/x",
        ]
        for url in urls {
            for method in ["GET", "POST", "PROPFIND", "DELETE"] {
                let live = request(method, url)
                let expected = rules.indices.filter { rules[$0].match.matches(live) }
                #expect(set.evaluate(live).matchedRules == expected, "\(method) \(url)")
            }
        }
    }

    @Test func ruleSetDescriptionListsRulesAsUnderstood() throws {
        let rules = try ruleSet(
            """
            {"version": 1, "rules": [
              {"name": "users", "match": {"method": "GET", "host": "api.example.com", "path": "/v1/users"},
               "actions": [{"mock": {"json": {"users": []}, "delay": 0.5}}]},
              {"match": {"host": "*.ads.example"}, "actions": [{"block": {"error": "notConnectedToInternet"}}]}
            ]}
            """)
        #expect(
            rules.description == """
                #0 "users": when method GET, host api.example.com, path /v1/users: mock status 200, 12 bytes (json), delay 0.5 s
                #1: when host *.ads.example: block with error notConnectedToInternet (-1009)
                """)
    }
}
