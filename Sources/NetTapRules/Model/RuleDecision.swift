import Foundation
import NetTapCore

/// What the rules decided for one request: everything the capture layer must apply, in one value.
///
/// How to apply it, in this order:
/// 1. `url`: when not nil, send the request there (after earlier rewrites were composed).
/// 2. `requestHeaderEdits`: apply to the request headers in order (`edits.apply(to: &headers)`);
///    they include the `Host` header of a host-to-IP rewrite.
/// 3. `proxy`: route through it (Apple platforms only; Linux rule files with proxies do not load).
/// 4. `throttle` / `throttleFailure`: if `throttleFailure` is set, fail with that URL error after
///    `throttle.latency`; otherwise pace the upload by `throttle.uploadSchedule`, add the latency,
///    pace the response body by `throttle.downloadSchedule`, and fail with `timedOut` at
///    `throttle.forcedTimeout` if the answer is not complete by then. Throttling applies to mocked
///    and mapped answers too, so a mock can be made slow.
/// 5. `terminal`: answer without the network (`.mock`, `.mapLocal`, `.block`) or ask the replay
///    engine for the `ReplaySource` (`.replay`); `.none` means go to the network.
/// 6. `responseHeaderEdits`: apply to the response headers the app will see (network or rule answer).
/// 7. `recordTargets`: after redaction, append the finished exchange to each HAR file.
/// 8. `modifications`: store in `Exchange.modifications` so the exchange shows what the rules did.
public struct RuleDecision: Sendable, Hashable {
    /// Indexes (into `RuleSet.rules`) of every rule that matched and applied, in order.
    public var matchedRules: [Int] = []
    /// The rewritten URL; nil when no rewrite changed it.
    public var url: URL?
    public var requestHeaderEdits: [HeaderEdit] = []
    public var responseHeaderEdits: [HeaderEdit] = []
    /// The merged throttle profile of every matching throttle action (later fields win).
    public var throttle: ThrottleProfile?
    /// Set when the throttle's failure draw for this request's ordinal says it fails.
    public var throttleFailure: URLErrorCode?
    public var proxy: ProxyTarget?
    public var recordTargets: [RecordTarget] = []
    public var terminal: RuleTerminal = .none
    /// Every change, attributed to its rule, in the order applied.
    public var modifications: [ExchangeModification] = []

    public init() {}

    /// True when no rule matched: the request goes out untouched.
    public var isEmpty: Bool { matchedRules.isEmpty }
}

/// How the request ends, when a rule ends it.
public enum RuleTerminal: Sendable, Hashable {
    /// Go to the network.
    case none
    /// Answer with this response (from a mock action).
    case mock(RuleResponse)
    /// Answer from a local file: call `action.response(forPath: path)` (reads the file now).
    case mapLocal(MapLocalAction, path: String)
    /// Fail with a URL error, or answer with a status (`BlockAction.response`).
    case block(BlockAction)
    /// Ask the replay engine for this recording; on a miss, `source.options.mode` decides.
    case replay(ReplaySource)
}
