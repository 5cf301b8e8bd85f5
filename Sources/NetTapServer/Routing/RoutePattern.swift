/// A path pattern such as `/users/:id/files/*`: literal segments, `:name` segments that
/// capture one segment, and a final `*` that captures the rest (zero or more segments).
struct RoutePattern: Sendable, Hashable, CustomStringConvertible {
    enum Segment: Hashable {
        case literal(String)
        case parameter(String)
        case wildcard

        /// Lower is more specific; used to choose between patterns that both match.
        var rank: Int {
            switch self {
            case .literal: return 0
            case .parameter: return 1
            case .wildcard: return 2
            }
        }
    }

    let description: String
    let segments: [Segment]

    /// Parses `pattern`; a `*` anywhere but last is treated as a literal segment.
    init(_ pattern: String) {
        description = pattern
        let parts = Self.segments(of: pattern)
        segments = parts.enumerated().map { index, part in
            if part == "*" && index == parts.count - 1 { return .wildcard }
            if part.hasPrefix(":") && part.count > 1 { return .parameter(String(part.dropFirst())) }
            return .literal(String(part))
        }
    }

    /// The captured parameters if `path` (percent-encoded, no query) matches, else nil.
    /// Captured values are percent-decoded; the wildcard's is stored under `*`.
    func match(_ path: String) -> [String: String]? {
        let parts = Self.segments(of: path)
        var parameters: [String: String] = [:]
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .wildcard:
                parameters["*"] = HTTPServerRequest.decode(Substring(parts[index...].joined(separator: "/")))
                return parameters
            case .literal(let literal):
                guard index < parts.count, parts[index] == literal else { return nil }
            case .parameter(let name):
                guard index < parts.count, !parts[index].isEmpty else { return nil }
                parameters[name] = HTTPServerRequest.decode(parts[index])
            }
        }
        return parts.count == segments.count ? parameters : nil
    }

    /// Segments after the leading slash; `/` alone has none, and a trailing slash adds an empty one.
    private static func segments(of path: String) -> [Substring] {
        let trimmed = path.hasPrefix("/") ? path.dropFirst() : Substring(path)
        return trimmed.isEmpty ? [] : trimmed.split(separator: "/", omittingEmptySubsequences: false)
    }
}
