import Foundation
import NetTapCore
import Testing
import NetTapRules

func request(
    _ method: String = "GET", _ url: String, headers: HTTPHeaders = HTTPHeaders(), body: Data? = nil
) -> RuleRequest {
    RuleRequest(method: method, url: URL(string: url) ?? URL(fileURLWithPath: "/"), headers: headers, body: body)
}

/// Loads rules from JSON text (relative paths resolve against `directory`).
func ruleSet(_ json: String, directory: URL = URL(fileURLWithPath: "/tmp"), proxies: Bool = true) throws -> RuleSet {
    try RuleSet(
        jsonData: Data(json.utf8), baseDirectory: directory, fileName: "rules.json",
        options: RuleLoadOptions(platformSupportsProxyRules: proxies))
}

@Suite struct RuleMatchTests {
    @Test func emptyMatchAcceptsEverything() {
        #expect(RuleMatch().matches(request("DELETE", "ftp://x/y")))
        #expect(RuleMatch().description == "every request")
    }

    @Test func schemeAndMethodCompareWithoutCase() {
        let match = RuleMatch(schemes: ["HTTPS"], methods: ["post", "PROPFIND"])
        #expect(match.matches(request("POST", "https://a.com/")))
        #expect(match.matches(request("propfind", "HTTPS://a.com/")))
        #expect(!match.matches(request("GET", "https://a.com/")))
        #expect(!match.matches(request("POST", "http://a.com/")))
        #expect(!match.matches(request("PROPPATCH", "https://a.com/")))
    }

    @Test func exactAndWildcardHosts() throws {
        let exact = RuleMatch(hosts: [try HostPattern("API.example.com")])
        #expect(exact.matches(request("GET", "https://api.example.com/x")))
        #expect(!exact.matches(request("GET", "https://v2.api.example.com/x")))
        let wildcard = RuleMatch(hosts: [try HostPattern("*.example.com")])
        #expect(wildcard.matches(request("GET", "https://a.b.example.com/")))
        #expect(wildcard.matches(request("GET", "https://example.com/")))
        #expect(!wildcard.matches(request("GET", "https://badexample.com/")))
        #expect(!wildcard.matches(request("GET", "https://example.com.evil.net/")))
    }

    @Test func hostPatternsRejectPortsPathsAndInnerStars() {
        #expect(throws: InvalidPattern.self) { try HostPattern("a.com:8080") }
        #expect(throws: InvalidPattern.self) { try HostPattern("a.com/x") }
        #expect(throws: InvalidPattern.self) { try HostPattern("a*.com") }
        #expect(throws: InvalidPattern.self) { try HostPattern("*.") }
        #expect((try? HostPattern("::1"))?.domain == "::1")
    }

    @Test func portMatchesTheEffectivePort() {
        let https = RuleMatch(ports: [443])
        #expect(https.matches(request("GET", "https://a.com/")))
        #expect(https.matches(request("GET", "http://a.com:443/")))
        #expect(!https.matches(request("GET", "http://a.com/")))
        #expect(RuleMatch(ports: [8080, 9090]).matches(request("GET", "http://a.com:9090/")))
    }

    @Test func pathRegexMatchesThePercentEncodedPath() throws {
        let match = RuleMatch(path: .regex(try RuleRegex("^/v[0-9]+/users/[0-9]+$")))
        #expect(match.matches(request("GET", "https://a.com/v12/users/7?x=1")))
        #expect(!match.matches(request("GET", "https://a.com/v12/users/7/photos")))
        let encoded = RuleMatch(path: .regex(try RuleRegex("/a%20b$")))
        #expect(encoded.matches(request("GET", "https://a.com/x/a%20b")))
    }

    @Test func queryItemsPresentAbsentEqualsAndRegex() throws {
        let url = "https://a.com/s?q=swift%20rules&page=2&flag&tag=a&tag=b"
        func matches(_ name: String, _ matcher: ValueMatcher) -> Bool {
            RuleMatch(queryItems: [NamedValueMatcher(name: name, matcher: matcher)]).matches(request("GET", url))
        }
        #expect(matches("flag", .present))
        #expect(matches("page", .present))
        #expect(!matches("debug", .present))
        #expect(matches("debug", .absent))
        #expect(!matches("page", .absent))
        #expect(matches("q", .equals("swift rules")))
        #expect(matches("tag", .equals("b")))
        #expect(!matches("page", .equals("3")))
        #expect(matches("flag", .equals("")))
        #expect(matches("page", .regex(try RuleRegex("^[0-9]+$"))))
        #expect(!matches("q", .regex(try RuleRegex("^[0-9]+$"))))
        #expect(!matches("Page", .present))
    }

    @Test func headersIgnoreNameCase() throws {
        let headers: HTTPHeaders = ["User-Agent": "Shop/5.2 (iPhone)", "X-Env": "staging", "x-env": "canary"]
        func matches(_ name: String, _ matcher: ValueMatcher) -> Bool {
            RuleMatch(headers: [NamedValueMatcher(name: name, matcher: matcher)])
                .matches(request("GET", "https://a.com/", headers: headers))
        }
        #expect(matches("user-agent", .present))
        #expect(matches("Authorization", .absent))
        #expect(!matches("X-ENV", .absent))
        #expect(matches("X-Env", .equals("canary")))
        #expect(!matches("X-Env", .equals("Staging")))
        #expect(matches("USER-AGENT", .regex(try RuleRegex("iPhone"))))
        #expect(!matches("User-Agent", .regex(try RuleRegex("Android"))))
    }

    @Test func everyConditionMustHold() throws {
        let match = RuleMatch(
            schemes: ["https"], methods: ["GET"], hosts: [try HostPattern("*.example.com")], ports: [443],
            path: .glob(try PathGlob("/v1/*")),
            queryItems: [NamedValueMatcher(name: "a", matcher: .equals("1"))],
            headers: [NamedValueMatcher(name: "X-A", matcher: .present)])
        let headers: HTTPHeaders = ["X-A": "y"]
        #expect(match.matches(request("GET", "https://api.example.com/v1/u?a=1", headers: headers)))
        #expect(!match.matches(request("GET", "https://api.example.com/v1/u?a=2", headers: headers)))
        #expect(!match.matches(request("GET", "https://api.example.com/v1/u?a=1")))
        #expect(!match.matches(request("GET", "https://api.example.com:8443/v1/u?a=1", headers: headers)))
        #expect(!match.matches(request("GET", "https://api.example.com/v2/u?a=1", headers: headers)))
        #expect(
            match.description
                == "method GET, scheme https, host *.example.com, port 443, path /v1/*, query a = \"1\", header X-A present")
    }

    @Test func matchesLoadedFromJSON() throws {
        let rules = try ruleSet(
            """
            {"version": 1, "rules": [{"match": {"scheme": ["http", "https"], "host": ["a.com", "*.b.com"], "port": [80, 443],
              "method": ["GET", "HEAD"], "path": "/img/**", "query": {"size": {"regex": "^(s|m)$"}, "debug": false},
              "headers": {"Accept": "image/webp"}}, "actions": [{"block": {"status": 403}}]}]}
            """)
        let headers: HTTPHeaders = ["accept": "image/webp"]
        #expect(!rules.evaluate(request("HEAD", "http://x.b.com/img/a/b.png?size=m", headers: headers)).isEmpty)
        #expect(rules.evaluate(request("HEAD", "http://x.b.com/img/a/b.png?size=m&debug=1", headers: headers)).isEmpty)
        #expect(rules.evaluate(request("HEAD", "http://x.b.com/img/a/b.png?size=l", headers: headers)).isEmpty)
        #expect(rules.evaluate(request("POST", "http://a.com/img/a?size=s", headers: headers)).isEmpty)
        #expect(!rules.evaluate(request("GET", "https://a.com/img?size=s", headers: headers)).isEmpty)
    }
}
