import Foundation
import NetTapCore

/// An ordered, immutable list of rules, ready to evaluate. Swap whole rule sets at runtime through
/// `ActiveRules`; a `RuleSet` itself never changes.
///
/// ```swift
/// let rules = try RuleSet.load(contentsOf: URL(fileURLWithPath: "rules.json"))
/// let decision = rules.evaluate(RuleRequest(method: "GET", url: url, headers: headers))
/// if case .mock(let response) = decision.terminal { /* answer with response */ }
/// ```
///
/// Evaluation: rules are tried in order (only those whose host conditions can hold are looked at).
/// Each matching rule's modifying actions (rewrite, headers, throttle, proxy, record) apply in
/// order; the first matching rule with a terminal action (mock, mapLocal, block, replay) applies its
/// modifying actions, then ends the request and evaluation. Every rule matches against the request
/// as the app sent it; rewrites compose (a later rewrite starts from the URL an earlier one made).
public struct RuleSet: Sendable, CustomStringConvertible {
    public let rules: [Rule]
    /// The seed of throttle failure draws for throttle actions that give none.
    public let seed: UInt64
    private let index: RuleIndex
    /// One per rule, scanned before the full match (see `RulePrefilter`).
    private let prefilters: ContiguousArray<RulePrefilter>
    /// One per rule, the full match laid out for speed.
    private let matchers: ContiguousArray<CompiledMatch>

    public init(rules: [Rule], seed: UInt64 = 0) {
        self.rules = rules
        self.seed = seed
        self.index = RuleIndex(rules: rules)
        let matchers = ContiguousArray(rules.map { CompiledMatch($0.match) })
        self.matchers = matchers
        self.prefilters = ContiguousArray(matchers.map(\.prefilter))
    }

    /// No rules: every request goes out untouched.
    public static let empty = RuleSet(rules: [])

    /// How modifications name a rule: its name, or `#index` when it has none.
    public func label(ofRule index: Int) -> String {
        rules.indices.contains(index) ? (rules[index].name ?? "#\(index)") : "#\(index)"
    }

    /// Decides what happens to `request`. Pure: the same request, ordinal and rule set always give
    /// the same decision. `ordinal` numbers requests for the throttle failure draw
    /// (`ActiveRules.evaluate` supplies it).
    public func evaluate(_ request: RuleRequest, ordinal: UInt64 = 0) -> RuleDecision {
        evaluate(request, nextOrdinal: { ordinal })
    }

    /// Decides what happens to `request`, taking an ordinal from `nextOrdinal` only when a matching
    /// throttle draws for failure, so that traffic no throttle rule covers never shifts the draws.
    func evaluate(_ request: RuleRequest, nextOrdinal: () -> UInt64) -> RuleDecision {
        guard !rules.isEmpty else { return RuleDecision() }
        let candidates = index.candidates(for: request)
        // The common case, no rule matches, allocates nothing (unless rules for this host must be merged in).
        var position = 0
        while position < candidates.count, !matches(candidates[position], request) {
            position += 1
        }
        guard position < candidates.count else { return RuleDecision() }
        return decide(request, candidates: candidates[position...], nextOrdinal: nextOrdinal)
    }

    @inline(__always)
    private func matches(_ ruleIndex: Int, _ request: RuleRequest) -> Bool {
        prefilters[ruleIndex].admits(request) && matchers[ruleIndex].matchesAfterPrefilter(request)
    }

    /// Builds the decision from the first matching candidate on.
    private func decide(_ request: RuleRequest, candidates: ArraySlice<Int>, nextOrdinal: () -> UInt64) -> RuleDecision {
        var decision = RuleDecision.Parts()
        var currentURL = request.url
        for ruleIndex in candidates where matches(ruleIndex, request) {
            let rule = rules[ruleIndex]
            decision.matchedRules.append(ruleIndex)
            let label = label(ofRule: ruleIndex)
            for action in rule.actions where !action.isTerminal {
                apply(action, label: label, to: &decision, url: &currentURL)
            }
            if let terminal = rule.terminalAction {
                end(with: terminal, label: label, path: request.path, decision: &decision)
                break
            }
        }
        if let throttle = decision.throttle, (throttle.failureProbability ?? 0) > 0,
            let failure = throttle.failure(ordinal: nextOrdinal(), defaultSeed: seed)
        {
            decision.throttleFailure = failure
            let rule = decision.modifications.last { $0.action == "throttle" }?.rule ?? "throttle"
            decision.modifications.append(
                ExchangeModification(rule: rule, action: "throttle", detail: "failed with \(failure)"))
        }
        return RuleDecision(decision)
    }

    private func apply(_ action: RuleAction, label: String, to decision: inout RuleDecision.Parts, url: inout URL) {
        func note(_ detail: String) {
            decision.modifications.append(ExchangeModification(rule: label, action: action.name, detail: detail))
        }
        switch action {
        case .rewrite(let rewrite):
            guard let outcome = rewrite.apply(to: url) else {
                note("left unchanged: the rewrite of \(url.absoluteString) gives no valid URL")
                return
            }
            url = outcome.url
            if !outcome.changes.isEmpty { decision.url = outcome.url }
            if let host = outcome.hostHeader { decision.requestHeaderEdits.append(.set(name: "Host", value: host)) }
            if !outcome.changes.isEmpty { note(outcome.changes.joined(separator: "; ")) }
        case .headers(let headers):
            decision.requestHeaderEdits += headers.request
            decision.responseHeaderEdits += headers.response
            note(String(headers.description.dropFirst("headers ".count)))
        case .throttle(let profile):
            decision.throttle = (decision.throttle ?? ThrottleProfile()).merged(with: profile)
            note(String(profile.description.dropFirst("throttle ".count)))
        case .proxy(let target):
            decision.proxy = target
            note("through \(target)")
        case .record(let target):
            decision.recordTargets.append(target)
            note("to \(target.harFile.path)")
        case .mock, .mapLocal, .block, .replay:
            break
        }
    }

    private func end(with action: RuleAction, label: String, path: String, decision: inout RuleDecision.Parts) {
        let detail: String
        switch action {
        case .mock(let mock):
            decision.terminal = .mock(mock.response)
            detail = String(mock.description.dropFirst("mock ".count))
        case .mapLocal(let mapLocal):
            decision.terminal = .mapLocal(mapLocal, path: path)
            detail = String(mapLocal.description.dropFirst("mapLocal ".count))
        case .block(let block):
            decision.terminal = .block(block)
            detail = String(block.description.dropFirst("block ".count))
        case .replay(let source):
            decision.terminal = .replay(source)
            detail = String(source.description.dropFirst("replay ".count))
        case .rewrite, .headers, .throttle, .proxy, .record:
            return
        }
        decision.modifications.append(ExchangeModification(rule: label, action: action.name, detail: detail))
    }

    /// The rules as understood, one per line: `#0 "name": when host api.example.com: mock status 200, ...`.
    public var description: String {
        if rules.isEmpty { return "no rules" }
        return rules.enumerated().map { index, rule in
            "#\(index)" + (rule.name.map { " \"\($0)\"" } ?? "") + ": \(rule)"
        }.joined(separator: "\n")
    }
}
