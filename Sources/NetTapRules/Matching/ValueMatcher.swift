/// How a query item or request header must look for a rule to match.
///
/// In the rules file: `true` (present), `false` (absent), a string (equals), `{"regex": "..."}`.
public enum ValueMatcher: Sendable, Hashable, CustomStringConvertible {
    /// At least one item or field with that name, whatever its value.
    case present
    /// No item or field with that name.
    case absent
    /// At least one value equal to this (case-sensitive).
    case equals(String)
    /// At least one value in which the expression finds a match.
    case regex(RuleRegex)

    /// Whether the values found under the name satisfy the matcher (`nil` values count as "").
    func matches(_ values: some Collection<String>) -> Bool {
        switch self {
        case .present: return !values.isEmpty
        case .absent: return values.isEmpty
        case .equals(let expected): return values.contains(expected)
        case .regex(let regex): return values.contains { regex.matches($0) }
        }
    }

    public var description: String {
        switch self {
        case .present: return "present"
        case .absent: return "absent"
        case .equals(let value): return "= \"\(value)\""
        case .regex(let regex): return "~ /\(regex.pattern)/"
        }
    }
}

/// A name paired with the matcher its values must satisfy.
public struct NamedValueMatcher: Sendable, Hashable {
    public var name: String
    public var matcher: ValueMatcher

    public init(name: String, matcher: ValueMatcher) {
        self.name = name
        self.matcher = matcher
    }
}
