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

    /// Whether one value satisfies an `.equals` or `.regex` matcher.
    @inline(__always)
    func accepts(_ value: String) -> Bool {
        switch self {
        case .present: return true
        case .absent: return false
        case .equals(let expected): return Bytes.equal(value, expected)
        case .regex(let regex): return regex.matches(value)
        }
    }

    /// Whether the values found under a name satisfy the matcher, given how many there are and
    /// whether any of them is accepted. Absent wants none; present wants one; the others want one accepted.
    @inline(__always)
    func decide(found: Bool, accepted: Bool) -> Bool {
        switch self {
        case .present: return found
        case .absent: return !found
        case .equals, .regex: return accepted
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
    public let name: String
    public let matcher: ValueMatcher
    /// `name` lowercased once, for header matching.
    let lowercasedName: String

    public init(name: String, matcher: ValueMatcher) {
        self.name = name
        self.matcher = matcher
        self.lowercasedName = name.lowercased()
    }
}
