import NetTapCore

/// The rule set in force, swapped atomically at runtime (a settings screen toggles rules), plus
/// the request counter that throttle failure draws use.
///
/// Reading `current` takes an uncontended lock for the time of a reference copy; evaluation then
/// runs on that immutable snapshot, outside the lock, so a swap never waits on evaluations.
///
/// ```swift
/// let active = ActiveRules()
/// active.replace(with: try RuleSet.load(contentsOf: rulesURL))
/// let decision = active.evaluate(RuleRequest(method: "GET", url: url))
/// ```
public final class ActiveRules: Sendable {
    private struct State {
        var rules: RuleSet
        var nextOrdinal: UInt64
    }

    private let state: Protected<State>

    public init(_ rules: RuleSet = .empty) {
        state = Protected(State(rules: rules, nextOrdinal: 0))
    }

    /// The rule set in force now.
    public var current: RuleSet {
        state.withLock { $0.rules }
    }

    /// Puts `rules` in force for every request evaluated from now on, and restarts the request
    /// ordinals at 0 so that a seeded throttle behaves the same after each swap.
    public func replace(with rules: RuleSet) {
        state.withLock { state in
            state.rules = rules
            state.nextOrdinal = 0
        }
    }

    /// Evaluates `request` against the rules in force. Requests that a throttle with a failure
    /// probability matches are numbered in order for its failure draws; other requests take no number.
    public func evaluate(_ request: RuleRequest) -> RuleDecision {
        let rules = current
        return rules.evaluate(request) {
            state.withLock { state in
                defer { state.nextOrdinal &+= 1 }
                return state.nextOrdinal
            }
        }
    }
}
