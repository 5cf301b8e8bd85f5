/// An HTTP or HTTPS proxy that matching requests go through (Apple platforms: through a forwarding
/// session's `connectionProxyDictionary`; rejected at load time on Linux, see `RulesPlatform`).
public struct ProxyTarget: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case http
        case https
    }

    public var host: String
    public var port: Int
    public var kind: Kind

    public init(host: String, port: Int, kind: Kind = .http) {
        self.host = host
        self.port = port
        self.kind = kind
    }

    public var description: String { "\(kind.rawValue) proxy \(host):\(port)" }
}
