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
    /// Nil when no rule matched, so that the common case costs one pointer to pass around.
    private let storage: Storage?

    /// A decision in which no rule matched.
    public init() {
        storage = nil
    }

    init(_ parts: Parts) {
        storage = parts.matchedRules.isEmpty ? nil : Storage(parts)
    }

    /// True when no rule matched: the request goes out untouched.
    public var isEmpty: Bool { storage == nil }
    /// Indexes (into `RuleSet.rules`) of every rule that matched and applied, in order.
    public var matchedRules: [Int] { storage?.parts.matchedRules ?? [] }
    /// The rewritten URL; nil when no rewrite changed it.
    public var url: URL? { storage?.parts.url }
    /// Edits for the request headers, in order (including a host-to-IP `Host`).
    public var requestHeaderEdits: [HeaderEdit] { storage?.parts.requestHeaderEdits ?? [] }
    /// Edits for the response headers the app sees, in order.
    public var responseHeaderEdits: [HeaderEdit] { storage?.parts.responseHeaderEdits ?? [] }
    /// The merged throttle profile of every matching throttle action (later fields win).
    public var throttle: ThrottleProfile? { storage?.parts.throttle }
    /// Set when the throttle's failure draw for this request's ordinal says it fails.
    public var throttleFailure: URLErrorCode? { storage?.parts.throttleFailure }
    public var proxy: ProxyTarget? { storage?.parts.proxy }
    public var recordTargets: [RecordTarget] { storage?.parts.recordTargets ?? [] }
    public var terminal: RuleTerminal { storage?.parts.terminal ?? .none }
    /// Every change, attributed to its rule, in the order applied.
    public var modifications: [ExchangeModification] { storage?.parts.modifications ?? [] }

    /// The decision's contents while evaluation builds it.
    struct Parts: Sendable, Hashable {
        var matchedRules: [Int] = []
        var url: URL?
        var requestHeaderEdits: [HeaderEdit] = []
        var responseHeaderEdits: [HeaderEdit] = []
        var throttle: ThrottleProfile?
        var throttleFailure: URLErrorCode?
        var proxy: ProxyTarget?
        var recordTargets: [RecordTarget] = []
        var terminal: RuleTerminal = .none
        var modifications: [ExchangeModification] = []
    }

    private final class Storage: Sendable {
        let parts: Parts
        init(_ parts: Parts) { self.parts = parts }
    }

    public static func == (lhs: RuleDecision, rhs: RuleDecision) -> Bool {
        lhs.storage?.parts == rhs.storage?.parts
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage?.parts)
    }
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
