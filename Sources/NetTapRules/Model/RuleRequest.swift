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
    /// The parts, computed once; a class so that passing the request around copies one reference.
    final class Storage: Sendable {
        let method: String
        let url: URL
        let scheme: String
        let host: String
        let port: Int?
        let path: String
        let queryItems: [RuleQueryItem]
        let headers: HTTPHeaders
        let body: Data?
        let pathBytes: [UInt8]
        /// Each path segment as a range of `pathBytes` (the leading "/" excluded).
        let segmentRanges: [Range<Int>]
        let firstSegmentHash: UInt64
        let queryNameHashes: [UInt64]
        let headerNameHashes: [UInt64]
        /// `RulePrefilter.bloomBit` of every query item name and header name present.
        let queryNameBloom: UInt64
        let headerNameBloom: UInt64
        /// Hashes of the host and of each parent domain (`a.b.c`, `b.c`, `c`), for the host index.
        let hostSuffixHashes: [UInt64]
        /// Header names lowercased, parallel to `headers`, so matching compares bytes.
        let lowercasedHeaderNames: [String]
        /// Header values, parallel to `headers`.
        let headerValues: [String]
        let methodBit: UInt32
        let schemeBit: UInt8

        init(method: String, url: URL, headers: HTTPHeaders, body: Data?) {
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
            queryItems = RuleRequest.parseQuery(components?.percentEncodedQuery)
            pathBytes = Array(path.utf8)
            segmentRanges = RuleRequest.segmentRanges(ofPath: pathBytes)
            queryNameHashes = queryItems.map { RulePrefilter.hash(Substring($0.name)) }
            var suffixes: [UInt64] = []
            var rest = Substring(host)
            while !rest.isEmpty {
                suffixes.append(RulePrefilter.hash(rest))
                guard let dot = rest.firstIndex(of: ".") else { break }
                rest = rest[rest.index(after: dot)...]
            }
            hostSuffixHashes = suffixes
            let lowered = headers.map { $0.name.lowercased() }
            lowercasedHeaderNames = lowered
            headerValues = headers.map(\.value)
            headerNameHashes = lowered.map { RulePrefilter.hash(Substring($0)) }
            queryNameBloom = queryNameHashes.reduce(0) { $0 | RulePrefilter.bloomBit($1) }
            headerNameBloom = headerNameHashes.reduce(0) { $0 | RulePrefilter.bloomBit($1) }
            methodBit = RulePrefilter.methodBit(self.method)
            schemeBit = RulePrefilter.schemeBit(scheme)
            let first = segmentRanges.first ?? 0..<0
            firstSegmentHash = RulePrefilter.hash(bytes: pathBytes[first])
        }
    }

    let storage: Storage

    /// The method, uppercased.
    public var method: String { storage.method }
    public var url: URL { storage.url }
    /// The scheme, lowercased ("" when the URL has none).
    public var scheme: String { storage.scheme }
    /// The host, lowercased ("" when the URL has none).
    public var host: String { storage.host }
    /// The port written in the URL, if any.
    public var port: Int? { storage.port }
    /// The path as sent (percent-encoded); "/" when the URL has an empty path.
    public var path: String { storage.path }
    /// Query items in order, names and values percent-decoded (`+` stays `+`, as in URLs).
    public var queryItems: [RuleQueryItem] { storage.queryItems }
    public var headers: HTTPHeaders { storage.headers }
    public var body: Data? { storage.body }

    public init(method: String, url: URL, headers: HTTPHeaders = HTTPHeaders(), body: Data? = nil) {
        storage = Storage(method: method, url: url, headers: headers, body: body)
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

    static func defaultPort(forScheme scheme: String) -> Int? {
        switch scheme {
        case "http", "ws": return 80
        case "https", "wss": return 443
        default: return nil
        }
    }

    /// The ranges of the segments of a path (after its leading "/"; "/" alone is one empty segment).
    static func segmentRanges(ofPath bytes: [UInt8]) -> [Range<Int>] {
        let slash = UInt8(ascii: "/")
        var start = bytes.first == slash ? 1 : 0
        var ranges: [Range<Int>] = []
        var index = start
        while index < bytes.count {
            if bytes[index] == slash {
                ranges.append(start..<index)
                start = index + 1
            }
            index += 1
        }
        ranges.append(start..<max(start, bytes.count))
        return ranges
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
