import NetTapCore

/// What a request must look like for a rule to apply. Every condition given must hold; an empty
/// list (or nil) puts no condition on that part, so `RuleMatch()` matches every request.
///
/// ```swift
/// let match = RuleMatch(
///     methods: ["GET"], hosts: [try HostPattern("*.example.com")],
///     path: .glob(try PathGlob("/v1/users/*")),
///     queryItems: [NamedValueMatcher(name: "debug", matcher: .absent)])
/// ```
public struct RuleMatch: Sendable, Hashable, CustomStringConvertible {
    /// Lowercased schemes; any when empty.
    public var schemes: [String]
    public var hosts: [HostPattern]
    /// Ports compared with the request's effective port (the URL's, else 80/443 by scheme).
    public var ports: [Int]
    /// Uppercased methods; any when empty.
    public var methods: [String]
    public var path: PathMatcher?
    public var queryItems: [NamedValueMatcher]
    /// Header names compare without case.
    public var headers: [NamedValueMatcher]

    /// How a path condition is written: a segment glob or a regular expression.
    public enum PathMatcher: Sendable, Hashable, CustomStringConvertible {
        case glob(PathGlob)
        case regex(RuleRegex)

        public var description: String {
            switch self {
            case .glob(let glob): return glob.pattern
            case .regex(let regex): return "~ /\(regex.pattern)/"
            }
        }
    }

    public init(
        schemes: [String] = [], methods: [String] = [], hosts: [HostPattern] = [], ports: [Int] = [],
        path: PathMatcher? = nil, queryItems: [NamedValueMatcher] = [], headers: [NamedValueMatcher] = []
    ) {
        self.schemes = schemes.map { $0.lowercased() }
        self.methods = methods.map { $0.uppercased() }
        self.hosts = hosts
        self.ports = ports
        self.path = path
        self.queryItems = queryItems
        self.headers = headers
    }

    /// Whether `request` satisfies every condition. (A `RuleSet` compiles its matches once; this
    /// convenience compiles on each call.)
    public func matches(_ request: RuleRequest) -> Bool {
        let compiled = CompiledMatch(self)
        return compiled.prefilter.admits(request) && compiled.matchesAfterPrefilter(request)
    }

    /// The conditions in words, for `nettap rules check`: `GET https *.example.com path /v1/*`.
    public var description: String {
        var parts: [String] = []
        if !methods.isEmpty { parts.append("method " + methods.joined(separator: "|")) }
        if !schemes.isEmpty { parts.append("scheme " + schemes.joined(separator: "|")) }
        if !hosts.isEmpty { parts.append("host " + hosts.map(\.description).joined(separator: "|")) }
        if !ports.isEmpty { parts.append("port " + ports.map(String.init).joined(separator: "|")) }
        if let path { parts.append("path \(path)") }
        for item in queryItems { parts.append("query \(item.name) \(item.matcher)") }
        for header in headers { parts.append("header \(header.name) \(header.matcher)") }
        return parts.isEmpty ? "every request" : parts.joined(separator: ", ")
    }
}
