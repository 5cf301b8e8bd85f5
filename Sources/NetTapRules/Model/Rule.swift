/// A rule: when a request matches, apply these actions.
///
/// ```swift
/// let rule = Rule(
///     name: "offline users",
///     match: RuleMatch(methods: ["GET"], hosts: [try HostPattern("api.example.com")],
///                      path: .glob(try PathGlob("/v1/users"))),
///     actions: [.mock(MockAction(response: RuleResponse(statusCode: 503), bodySource: "empty"))])
/// ```
public struct Rule: Sendable, Hashable, CustomStringConvertible {
    public var name: String?
    /// A disabled rule stays in the file (and in `RuleSet.rules`) but never matches.
    public var isEnabled: Bool
    public var match: RuleMatch
    public var actions: [RuleAction]

    public init(name: String? = nil, isEnabled: Bool = true, match: RuleMatch = RuleMatch(), actions: [RuleAction]) {
        self.name = name
        self.isEnabled = isEnabled
        self.match = match
        self.actions = actions
    }

    /// The terminal action, if the rule has one (a loaded rule has at most one).
    public var terminalAction: RuleAction? {
        actions.first { $0.isTerminal }
    }

    public var description: String {
        let actionText = actions.map(\.description).joined(separator: "; ")
        return "when \(match): \(actionText)" + (isEnabled ? "" : " (disabled)")
    }
}
