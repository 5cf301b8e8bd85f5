import Foundation
import NetTapCore
import NetTapExport
import NetTapRules

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The rules in force for the whole process, and what they need at run time: replay fixtures
/// loaded once, and the files that `record` actions write.
///
/// Both capture paths execute rules through `NetTapURLProtocol`'s engine (NetTapSession puts a
/// rules-only interceptor first in its own configuration), so a rule behaves the same whichever
/// path carries the request.
public final class RulesRuntime: Sendable {
    public static let shared = RulesRuntime()

    /// The rules in force and the replay fixtures they use, swapped together in one step, so a
    /// request never meets new rules with old fixtures (or none).
    private let inForce = Protected(RulesInForce.none)
    let recorder = FixtureRecorder()

    /// Loads a JSON rules file, loads the replay fixtures it names, and puts it in force.
    /// Errors name the rule, the field and the line and column (rules) or the HAR entry (fixtures).
    @discardableResult
    public func load(contentsOf url: URL, redaction: RedactionPolicy = NetTap.shared.configuration.redaction) throws -> RuleSet {
        let rules = try RuleSet.load(contentsOf: url)
        try install(rules, redaction: redaction)
        return rules
    }

    /// Puts `rules` in force, loading the replay fixtures they name first. A failure (a missing
    /// fixture, a proxy rule where the platform cannot route one) leaves the previous rules in force.
    public func install(_ rules: RuleSet, redaction: RedactionPolicy = NetTap.shared.configuration.redaction) throws {
        try Self.checkPlatformSupport(rules)
        var loaded: [ReplaySource: ReplayEngine] = [:]
        for source in Self.replaySources(in: rules) where loaded[source] == nil {
            loaded[source] = try Self.loadEngine(source, redaction: redaction)
        }
        let next = RulesInForce(rules: ActiveRules(rules), engines: loaded, isActive: !rules.rules.isEmpty)
        inForce.withLock { $0 = next }
    }

    /// Removes every rule.
    public func clear() {
        inForce.withLock { $0 = .none }
    }

    /// The rule set in force now.
    public var current: RuleSet { inForce.current.rules.current }

    /// Whether any rule is in force: the one check on the request path when there are none.
    var isActive: Bool { inForce.withLock { $0.isActive } }

    /// The rules and fixtures in force now, for one request: decide and answer from the same snapshot.
    var snapshot: RulesInForce { inForce.current }

    /// Waits until every recorded exchange has been written to its HAR file.
    public func flushRecordings() {
        recorder.flush()
    }

    /// Rules built in code skip the rules file's checks; a proxy rule on Linux must still fail
    /// loudly rather than send traffic past the proxy it names.
    private static func checkPlatformSupport(_ rules: RuleSet) throws {
        guard !RulesPlatform.supportsProxyRules else { return }
        for (index, rule) in rules.rules.enumerated() {
            for action in rule.actions {
                if case .proxy = action {
                    let name = rule.name.map { "rule \"\($0)\"" } ?? "rule \(index + 1)"
                    throw RulesRuntimeError("\(name): \(RulesPlatform.proxyUnsupportedMessage)")
                }
            }
        }
    }

    private static func replaySources(in rules: RuleSet) -> [ReplaySource] {
        rules.rules.flatMap { rule in
            rule.actions.compactMap { action -> ReplaySource? in
                if case .replay(let source) = action { return source }
                return nil
            }
        }
    }

    private static func loadEngine(_ source: ReplaySource, redaction: RedactionPolicy) throws -> ReplayEngine {
        let fixtures: [Exchange]
        if FileManager.default.fileExists(atPath: source.harFile.path) {
            fixtures = try HARReader().decode(contentsOf: source.harFile)
        } else if source.options.mode == .recordMissing {
            fixtures = []  // recording will create it
        } else {
            throw RulesRuntimeError("replay file \(source.harFile.path) does not exist")
        }
        let redactor = Redactor(policy: redaction)
        return ReplayEngine(fixtures: fixtures, options: source.options) { redactor.redact($0) }
    }
}

/// The rules in force and the replay engines for their fixtures: one immutable snapshot.
struct RulesInForce: Sendable {
    let rules: ActiveRules
    let engines: [ReplaySource: ReplayEngine]
    let isActive: Bool

    static let none = RulesInForce(rules: ActiveRules(), engines: [:], isActive: false)

    /// The decision for `request`, whose body is `body` (an upload task keeps its body apart from
    /// its request); empty when no rule is in force.
    func decide(_ request: URLRequest, body: Data? = nil) -> RuleDecision {
        guard isActive, let url = request.url else { return RuleDecision() }
        let headers = HTTPHeaders(request.allHTTPHeaderFields ?? [:])
        return rules.evaluate(RuleRequest(method: request.httpMethod ?? "GET", url: url, headers: headers, body: body ?? request.httpBody))
    }

    /// The replay engine for `source`, loaded with these rules.
    func engine(for source: ReplaySource) -> ReplayEngine? {
        engines[source]
    }
}

/// A rules runtime failure: a missing fixture file, a rule the platform cannot carry out.
public struct RulesRuntimeError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
