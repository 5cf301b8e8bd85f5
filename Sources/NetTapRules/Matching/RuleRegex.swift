import Foundation

/// A regular expression compiled once, when a rule is built, and shared by every evaluation.
///
/// ```swift
/// let versioned = try RuleRegex("^/v[0-9]+/")
/// versioned.matches("/v2/users") // true
/// ```
public struct RuleRegex: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written (ICU syntax, as `NSRegularExpression` reads it).
    public let pattern: String
    private let expression: SharedExpression

    /// Throws `InvalidPattern` for a pattern that does not compile.
    public init(_ pattern: String) throws(InvalidPattern) {
        guard let compiled = try? NSRegularExpression(pattern: pattern) else {
            throw InvalidPattern(pattern: pattern, reason: "not a valid regular expression")
        }
        self.pattern = pattern
        self.expression = SharedExpression(compiled)
    }

    /// Whether the expression matches anywhere in `text` (anchor with `^`/`$` for a whole match).
    public func matches(_ text: String) -> Bool {
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        return expression.value.firstMatch(in: text, options: [], range: range) != nil
    }

    /// Replaces every match in `text` by `template`, where `$1`, `$2`... are capture groups.
    public func replacingMatches(in text: String, with template: String) -> String {
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        return expression.value.stringByReplacingMatches(in: text, options: [], range: range, withTemplate: template)
    }

    /// How many capture groups the pattern has.
    public var captureGroupCount: Int { expression.value.numberOfCaptureGroups }

    public var description: String { pattern }

    public static func == (lhs: RuleRegex, rhs: RuleRegex) -> Bool { lhs.pattern == rhs.pattern }
    public func hash(into hasher: inout Hasher) { hasher.combine(pattern) }

    /// `NSRegularExpression` is immutable and documented as safe to use from many threads at once.
    private final class SharedExpression: @unchecked Sendable {
        let value: NSRegularExpression
        init(_ value: NSRegularExpression) { self.value = value }
    }
}
