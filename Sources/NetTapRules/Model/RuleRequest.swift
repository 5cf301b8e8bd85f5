import Foundation
import NetTapCore

/// The request as rules see it: built once per request, then matched against every candidate rule.
///
/// Its parts are split and normalized up front (host lowercased, path split into segments, query
/// decoded) so that matching a thousand rules never re-parses the URL.
///
/// ```swift
/// let request = RuleRequest(method: "GET", url: URL(string: "https://api.example.com/v1/users?page=2")!,
///                           headers: ["Accept": "application/json"])
/// let decision = ruleSet.evaluate(request)
/// ```
public struct RuleRequest: Sendable {
    /// The method, uppercased.
    public let method: String
    public let url: URL
    /// The scheme, lowercased ("" when the URL has none).
    public let scheme: String
    /// The host, lowercased ("" when the URL has none).
    public let host: String
    /// The port written in the URL, if any.
    public let port: Int?
    /// The path as sent (percent-encoded); "/" when the URL has an empty path.
    public let path: String
    /// Query items in order, names and values percent-decoded (`+` stays `+`, as in URLs).
    public let queryItems: [RuleQueryItem]
    public let headers: HTTPHeaders
    public let body: Data?

    let pathSegments: [Substring]
    /// The host and each parent domain (`a.b.c`, `b.c`, `c`), for the wildcard index.
    let hostSuffixes: [String]

    public init(method: String, url: URL, headers: HTTPHeaders = HTTPHeaders(), body: Data? = nil) {
        self.method = method.uppercased()
        self.url = url
        self.headers = headers
        self.body = body
        let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        scheme = (components?.scheme ?? url.scheme ?? "").lowercased()
        let host = (components?.host ?? url.host ?? "").lowercased()
        self.host = host
        port = components?.port ?? url.port
        let rawPath = components?.percentEncodedPath ?? url.path
        path = rawPath.isEmpty ? "/" : rawPath
        queryItems = Self.parseQuery(components?.percentEncodedQuery)
        pathSegments = Self.segments(ofPath: path)
        var suffixes: [String] = []
        var rest = Substring(host)
        while !rest.isEmpty {
            suffixes.append(String(rest))
            guard let dot = rest.firstIndex(of: ".") else { break }
            rest = rest[rest.index(after: dot)...]
        }
        hostSuffixes = suffixes
    }

    /// A request from a captured one (for replay and tools); nil when its URL does not parse.
    public init?(_ captured: CapturedRequest) {
        guard let url = URL(string: captured.url) else { return nil }
        self.init(method: captured.method, url: url, headers: captured.headers, body: captured.body?.data)
    }

    /// The port in the URL, or the scheme's default (80 for http/ws, 443 for https/wss).
    public var effectivePort: Int? {
        port ?? Self.defaultPort(forScheme: scheme)
    }

    /// The values of every query item named `name`, in order (a name without `=` counts as "").
    public func queryValues(named name: String) -> [String] {
        queryItems.compactMap { $0.name == name ? ($0.value ?? "") : nil }
    }

    static func defaultPort(forScheme scheme: String) -> Int? {
        switch scheme {
        case "http", "ws": return 80
        case "https", "wss": return 443
        default: return nil
        }
    }

    static func segments(ofPath path: String) -> [Substring] {
        let trimmed = path.hasPrefix("/") ? path.dropFirst() : Substring(path)
        return trimmed.split(separator: "/", omittingEmptySubsequences: false)
    }

    static func parseQuery(_ query: String?) -> [RuleQueryItem] {
        guard let query, !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            if let equals = pair.firstIndex(of: "=") {
                return RuleQueryItem(
                    name: decode(pair[..<equals]), value: decode(pair[pair.index(after: equals)...]))
            }
            return RuleQueryItem(name: decode(pair), value: nil)
        }
    }

    private static func decode(_ text: Substring) -> String {
        let string = String(text)
        guard string.contains("%") else { return string }
        return string.removingPercentEncoding ?? string
    }
}

/// One query item: `name=value`, or `name` alone (value nil).
public struct RuleQueryItem: Sendable, Hashable {
    public var name: String
    public var value: String?

    public init(name: String, value: String?) {
        self.name = name
        self.value = value
    }
}
