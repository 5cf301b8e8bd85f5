/// A path pattern compiled to a segment matcher: `*` is one whole non-empty segment, `**` as the
/// last segment is any suffix (zero or more segments), and `*` inside a segment (`*.png`) matches
/// any run of characters within that segment. Everything else compares literally, case-sensitive,
/// against the percent-encoded path as it is sent.
///
/// ```swift
/// let glob = try PathGlob("/api/*/items/**")
/// glob.matches(path: "/api/v2/items/42/photos") // true
/// glob.matches(path: "/api/v2/other")           // false
/// ```
public struct PathGlob: Sendable, Hashable, CustomStringConvertible {
    enum Segment: Sendable, Hashable {
        /// The segment's text and its bytes (compared byte for byte).
        case literal(String, [UInt8])
        /// `*`: any one non-empty segment.
        case any
        /// A segment with `*` inside: the literal pieces between the stars, in order.
        case wildcard([String])
    }

    public let pattern: String
    let segments: [Segment]
    /// True when the pattern ends in `/**`.
    let matchesAnySuffix: Bool

    public init(_ pattern: String) throws(InvalidPattern) {
        guard pattern.hasPrefix("/") else {
            throw InvalidPattern(pattern: pattern, reason: "a path pattern must start with '/'")
        }
        var parts = pattern.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        var anySuffix = false
        if parts.last == "**" {
            anySuffix = true
            parts.removeLast()
        }
        var compiled: [Segment] = []
        for part in parts {
            if part.contains("**") {
                throw InvalidPattern(pattern: pattern, reason: "'**' is allowed only as the last segment")
            }
            if part == "*" {
                compiled.append(.any)
            } else if part.contains("*") {
                compiled.append(.wildcard(part.split(separator: "*", omittingEmptySubsequences: false).map(String.init)))
            } else {
                compiled.append(.literal(String(part), Array(part.utf8)))
            }
        }
        self.pattern = pattern
        self.segments = compiled
        self.matchesAnySuffix = anySuffix
    }

    /// Whether a path (percent-encoded, starting with "/") matches.
    public func matches(path: String) -> Bool {
        let bytes = Array(path.utf8)
        return CompiledGlob(self).matches(bytes, segments: RuleRequest.segmentRanges(ofPath: bytes))
    }

    public var description: String { pattern }
}
