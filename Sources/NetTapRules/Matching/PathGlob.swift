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
        case literal(String)
        /// `*`: any one non-empty segment.
        case any
        /// A segment with `*` inside: the literal pieces between the stars, in order.
        case wildcard([String])
    }

    public let pattern: String
    let segments: [Segment]
    /// True when the pattern ends in `/**`.
    let matchesAnySuffix: Bool

    /// Thrown for a pattern that is not a path or misuses `**`.
    public struct Invalid: Error, Sendable, Hashable {
        public let pattern: String
        public let reason: String
    }

    public init(_ pattern: String) throws(Invalid) {
        guard pattern.hasPrefix("/") else {
            throw Invalid(pattern: pattern, reason: "a path pattern must start with '/'")
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
                throw Invalid(pattern: pattern, reason: "'**' is allowed only as the last segment")
            }
            if part == "*" {
                compiled.append(.any)
            } else if part.contains("*") {
                compiled.append(.wildcard(part.split(separator: "*", omittingEmptySubsequences: false).map(String.init)))
            } else {
                compiled.append(.literal(String(part)))
            }
        }
        self.pattern = pattern
        self.segments = compiled
        self.matchesAnySuffix = anySuffix
    }

    /// Whether a path (percent-encoded, starting with "/") matches.
    public func matches(path: String) -> Bool {
        matches(segments: RuleRequest.segments(ofPath: path))
    }

    /// Matching over a request's path already split at "/" (without the leading empty segment).
    func matches(segments path: [Substring]) -> Bool {
        if matchesAnySuffix {
            guard path.count >= segments.count else { return false }
        } else {
            guard path.count == segments.count else { return false }
        }
        var index = 0
        for segment in segments {
            let actual = path[index]
            switch segment {
            case .literal(let literal):
                if actual != literal { return false }
            case .any:
                if actual.isEmpty { return false }
            case .wildcard(let pieces):
                if !Self.matchesWildcard(actual, pieces: pieces) { return false }
            }
            index += 1
        }
        return true
    }

    private static func matchesWildcard(_ text: Substring, pieces: [String]) -> Bool {
        guard let first = pieces.first, let last = pieces.last, pieces.count >= 2 else { return false }
        guard text.hasPrefix(first) else { return false }
        var rest = text.dropFirst(first.count)
        guard rest.count >= last.count, rest.hasSuffix(last) else { return false }
        rest = rest.dropLast(last.count)
        for piece in pieces.dropFirst().dropLast() where !piece.isEmpty {
            guard let range = rest.range(of: piece) else { return false }
            rest = rest[range.upperBound...]
        }
        return true
    }

    public var description: String { pattern }
}
