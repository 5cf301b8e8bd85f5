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

    /// The rule set in force; swap it atomically with `active.replace(with:)` or `load(contentsOf:)`.
    public let active = ActiveRules()
    private let engines = Protected<[ReplaySource: ReplayEngine]>([:])
    private let hasRules = Protected(false)
    let recorder = FixtureRecorder()

    /// Loads a JSON rules file, loads the replay fixtures it names, and puts it in force.
    /// Errors name the rule, the field and the line and column (rules) or the HAR entry (fixtures).
    @discardableResult
    public func load(contentsOf url: URL, redaction: RedactionPolicy = NetTap.shared.configuration.redaction) throws -> RuleSet {
        let rules = try RuleSet.load(contentsOf: url)
        try install(rules, redaction: redaction)
        return rules
    }

    /// Puts `rules` in force, loading the replay fixtures they name first (a failure leaves the
    /// previous rules in force).
    public func install(_ rules: RuleSet, redaction: RedactionPolicy = NetTap.shared.configuration.redaction) throws {
        var loaded: [ReplaySource: ReplayEngine] = [:]
        for source in Self.replaySources(in: rules) where loaded[source] == nil {
            loaded[source] = try Self.loadEngine(source, redaction: redaction)
        }
        engines.withLock { $0 = loaded }
        active.replace(with: rules)
        hasRules.withLock { $0 = !rules.rules.isEmpty }
    }

    /// Removes every rule.
    public func clear() {
        active.replace(with: .empty)
        engines.withLock { $0 = [:] }
        hasRules.withLock { $0 = false }
    }

    /// Whether any rule is in force: the one check on the request path when there are none.
    var isActive: Bool { hasRules.current }

    /// The decision for `request`; empty when no rule is in force.
    func decide(_ request: URLRequest) -> RuleDecision {
        guard isActive, let url = request.url else { return RuleDecision() }
        let headers = HTTPHeaders(request.allHTTPHeaderFields ?? [:])
        return active.evaluate(RuleRequest(method: request.httpMethod ?? "GET", url: url, headers: headers, body: request.httpBody))
    }

    /// The replay engine for `source` (loaded when the rules were installed).
    func engine(for source: ReplaySource) -> ReplayEngine? {
        engines.withLock { $0[source] }
    }

    /// Waits until every recorded exchange has been written to its HAR file.
    public func flushRecordings() {
        recorder.flush()
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

/// A rules runtime failure (a missing fixture file).
public struct RulesRuntimeError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
