import Foundation
import NetTapCore

/// Measures rule evaluation, for nettap-bench.
///
/// ```swift
/// let nanoseconds = RulesBenchmark.measureEvaluation(ruleCount: 1_000, iterations: 100_000)
/// ```
public enum RulesBenchmark {
    /// Nanoseconds per `RuleSet.evaluate` of a typical API request against `ruleCount` rules that
    /// all fail to match it. The rules mix what real files hold, in a cycle of eight: five on exact
    /// or wildcard hosts of other services (skipped by the host index), one on other methods, one on
    /// another API version's paths (both rejected by the prefilter), and one near miss (same method
    /// and path glob, a header the request has with another value) that goes through the full match.
    public static func measureEvaluation(ruleCount: Int, iterations: Int) -> Double {
        let rules = RuleSet(rules: (0..<max(0, ruleCount)).map(nonMatchingRule))
        let request = sampleRequest
        var matched = 0
        // Warm up caches and lazily initialized state before timing.
        for _ in 0..<min(1_000, max(1, iterations / 10)) {
            matched &+= rules.evaluate(request).matchedRules.count
        }
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<max(1, iterations) {
            matched &+= rules.evaluate(request).matchedRules.count
        }
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        precondition(matched == 0, "benchmark rules must not match the sample request")
        return Double(elapsed) / Double(max(1, iterations))
    }

    /// `count` rules of the benchmark mix, none of which matches `sampleRequest` (nor plain loopback
    /// URLs such as `http://127.0.0.1:PORT/payload`), for end-to-end measurements.
    public static func nonMatchingRuleSet(count: Int) -> RuleSet {
        RuleSet(rules: (0..<max(0, count)).map(nonMatchingRule))
    }

    /// The request every iteration evaluates.
    static let sampleRequest: RuleRequest = {
        var components = URLComponents()
        components.scheme = "https"
        components.host = "api.example.com"
        components.path = "/v2/users/12345/orders"
        components.percentEncodedQuery = "page=3&limit=50&sort=created"
        let url = components.url ?? URL(fileURLWithPath: "/")
        return RuleRequest(
            method: "GET", url: url,
            headers: [
                "Accept": "application/json", "User-Agent": "Shop/5.2 (iPhone; iOS 17.4)",
                "Authorization": "Bearer abc", "X-Request-ID": "9d5c", "Accept-Language": "en-GB",
            ])
    }()

    /// Rule `index` of the benchmark mix; none matches `sampleRequest`.
    static func nonMatchingRule(_ index: Int) -> Rule {
        let match: RuleMatch
        switch index % 8 {
        case 0:
            match = RuleMatch(hosts: hosts("svc\(index).example.net"), path: glob("/v1/items/*"))
        case 1:
            match = RuleMatch(methods: ["POST"], hosts: hosts("*.cdn\(index).example.org"))
        case 2:
            match = RuleMatch(schemes: ["https"], hosts: hosts("img\(index).example.com"), path: glob("/static/**"))
        case 3:
            match = RuleMatch(methods: ["PUT", "PATCH"], path: glob("/v2/users/*/settings"))
        case 4:
            match = RuleMatch(hosts: hosts("auth\(index).example.io"), path: regex("^/oauth/token\(index)$"))
        case 5:
            // A near miss: same method and path, a header the request has, another value.
            match = RuleMatch(
                methods: ["GET"], path: glob("/v2/users/*/orders"),
                headers: [NamedValueMatcher(name: "Accept-Language", matcher: .equals("fr-\(index)"))])
        case 6:
            match = RuleMatch(hosts: hosts("*.tracking\(index).example.com"), path: glob("/collect"))
        default:
            match = RuleMatch(
                path: glob("/v\(index % 5 + 3)/**"),
                headers: [NamedValueMatcher(name: "X-Experiment", matcher: .equals("b\(index)"))])
        }
        return Rule(
            name: "rule \(index)", match: match,
            actions: [.headers(HeaderAction(request: [.set(name: "X-Rule", value: String(index))]))])
    }

    private static func hosts(_ pattern: String) -> [HostPattern] {
        (try? HostPattern(pattern)).map { [$0] } ?? []
    }

    private static func glob(_ pattern: String) -> RuleMatch.PathMatcher? {
        (try? PathGlob(pattern)).map { .glob($0) }
    }

    private static func regex(_ pattern: String) -> RuleMatch.PathMatcher? {
        (try? RuleRegex(pattern)).map { .regex($0) }
    }
}
