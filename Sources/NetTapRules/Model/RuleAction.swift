/// What a rule does to a matching request. Mock, mapLocal, block and replay end the request
/// (terminal); the others modify it and let evaluation go on.
public enum RuleAction: Sendable, Hashable, CustomStringConvertible {
    case mock(MockAction)
    case mapLocal(MapLocalAction)
    case rewrite(RewriteAction)
    case block(BlockAction)
    case headers(HeaderAction)
    case throttle(ThrottleProfile)
    case proxy(ProxyTarget)
    case record(RecordTarget)
    case replay(ReplaySource)

    /// True for the actions that answer or end the request instead of the network.
    public var isTerminal: Bool {
        switch self {
        case .mock, .mapLocal, .block, .replay: return true
        case .rewrite, .headers, .throttle, .proxy, .record: return false
        }
    }

    /// The action's name as in the rules file and in `ExchangeModification.action`.
    public var name: String {
        switch self {
        case .mock: return "mock"
        case .mapLocal: return "mapLocal"
        case .rewrite: return "rewrite"
        case .block: return "block"
        case .headers: return "headers"
        case .throttle: return "throttle"
        case .proxy: return "proxy"
        case .record: return "record"
        case .replay: return "replay"
        }
    }

    /// Every action name, in the order the documentation lists them.
    public static let names = ["mock", "mapLocal", "rewrite", "block", "headers", "throttle", "proxy", "record", "replay"]

    public var description: String {
        switch self {
        case .mock(let action): return action.description
        case .mapLocal(let action): return action.description
        case .rewrite(let action): return action.description
        case .block(let action): return action.description
        case .headers(let action): return action.description
        case .throttle(let profile): return profile.description
        case .proxy(let target): return "proxy through \(target)"
        case .record(let target): return target.description
        case .replay(let source): return source.description
        }
    }
}
