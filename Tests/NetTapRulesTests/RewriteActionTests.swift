import Foundation
import Testing
import NetTapRules

@Suite struct RewriteActionTests {
    private func apply(_ rewrite: RewriteAction, _ url: String) -> RewriteAction.Outcome? {
        URL(string: url).flatMap { rewrite.apply(to: $0) }
    }

    @Test func environmentSwitchRewritesSchemeAndHost() {
        let outcome = apply(RewriteAction(scheme: "https", host: "staging.example.com"), "http://api.example.com/v1/a?x=1#f")
        #expect(outcome?.url.absoluteString == "https://staging.example.com/v1/a?x=1#f")
        #expect(outcome?.hostHeader == nil)
        #expect(outcome?.changes == ["scheme http -> https", "host api.example.com -> staging.example.com"])
    }

    @Test func pathRegexReplaceUsesCaptureGroups() throws {
        let rewrite = RewriteAction(
            path: RewriteAction.PathRewrite(regex: try RuleRegex("^/api/v([0-9]+)/(.*)$"), replacement: "/v$1-beta/$2"))
        let outcome = apply(rewrite, "https://a.com/api/v3/users/7?q=1")
        #expect(outcome?.url.absoluteString == "https://a.com/v3-beta/users/7?q=1")
        #expect(outcome?.changes == ["path /api/v3/users/7 -> /v3-beta/users/7"])
        let untouched = apply(rewrite, "https://a.com/other")
        #expect(untouched?.url.absoluteString == "https://a.com/other")
        #expect(untouched?.changes == [])
    }

    @Test func queryEditsSetAddRemoveKeepOtherItemsByteForByte() {
        let rewrite = RewriteAction(queryEdits: [
            .set(name: "env", value: "qa & test"), .add(name: "tag", value: "b"), .remove(name: "debug"),
            .set(name: "new", value: "1"),
        ])
        let outcome = apply(rewrite, "https://a.com/s?q=a%2Bb&env=prod&tag=a&debug=1&env=old&debug")
        #expect(outcome?.url.absoluteString == "https://a.com/s?q=a%2Bb&env=qa%20%26%20test&tag=a&tag=b&new=1")
        let cleared = apply(RewriteAction(queryEdits: [.remove(name: "a")]), "https://a.com/?a=1")
        #expect(cleared?.url.absoluteString == "https://a.com/")
    }

    @Test func hostToIPKeepsTheOriginalHostHeader() {
        let outcome = apply(RewriteAction(hostToIP: "203.0.113.7"), "https://api.example.com/v1/x")
        #expect(outcome?.url.absoluteString == "https://203.0.113.7/v1/x")
        #expect(outcome?.hostHeader == "api.example.com")
        #expect(outcome?.changes == ["host-to-IP api.example.com -> 203.0.113.7 (Host: api.example.com)"])
        let withPort = apply(RewriteAction(hostToIP: "10.0.0.2"), "http://api.example.com:8080/")
        #expect(withPort?.url.absoluteString == "http://10.0.0.2:8080/")
        #expect(withPort?.hostHeader == "api.example.com:8080")
        let defaultPort = apply(RewriteAction(hostToIP: "10.0.0.2"), "https://api.example.com:443/")
        #expect(defaultPort?.hostHeader == "api.example.com")
    }

    @Test func hostToIPAcceptsIPv6() {
        let outcome = apply(RewriteAction(hostToIP: "2001:db8::1"), "https://api.example.com/x")
        #expect(outcome?.url.absoluteString == "https://[2001:db8::1]/x")
        #expect(outcome?.hostHeader == "api.example.com")
    }

    @Test func hostToIPAfterAHostRewriteSendsTheRewrittenHost() throws {
        let rules = try ruleSet(
            """
            {"version": 1, "rules": [{"name": "pin", "match": {"host": "api.example.com"},
              "actions": [{"rewrite": {"host": "edge.example.com", "hostToIP": "198.51.100.4"}}]}]}
            """)
        let decision = rules.evaluate(request("GET", "https://api.example.com/a"))
        #expect(decision.url?.absoluteString == "https://198.51.100.4/a")
        #expect(decision.requestHeaderEdits == [.set(name: "Host", value: "edge.example.com")])
        #expect(decision.modifications.map(\.detail) == [
            "host api.example.com -> edge.example.com; host-to-IP edge.example.com -> 198.51.100.4 (Host: edge.example.com)"
        ])
    }

    @Test func loadedRewriteCarriesEveryField() throws {
        let rules = try ruleSet(
            """
            {"version": 1, "rules": [{"match": {}, "actions": [{"rewrite": {"scheme": "http", "port": 9000,
              "path": {"regex": "^/(.*)$", "replace": "/proxy/$1"}, "query": {"remove": ["t"], "add": {"via": "nettap"}}}}]}]}
            """)
        let decision = rules.evaluate(request("POST", "https://a.com/x/y?t=1&k=2"))
        #expect(decision.url?.absoluteString == "http://a.com:9000/proxy/x/y?k=2&via=nettap")
    }
}
