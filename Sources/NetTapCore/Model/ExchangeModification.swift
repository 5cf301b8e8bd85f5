/// A change that a NetTap rule made to an exchange, so that inspection and analysis can tell
/// a mocked, rewritten or throttled exchange from a real one.
public struct ExchangeModification: Sendable, Hashable, Codable {
    /// The name of the rule (or its index when it has no name).
    public var rule: String
    /// The action: "mock", "mapLocal", "rewrite", "block", "headers", "throttle", "proxy", "replay", "record".
    public var action: String
    /// What changed, in words: "host api.example.com -> staging.example.com".
    public var detail: String

    public init(rule: String, action: String, detail: String) {
        self.rule = rule
        self.action = action
        self.detail = detail
    }
}
