import Foundation
import NetTapCore

/// A parsed request as a handler sees it: head, whole body, and where it came from.
///
/// The body has already been read (and de-chunked) when the handler runs, so handlers never
/// touch the socket to read. `path` and `query` are exactly as on the wire (still
/// percent-encoded); `queryItems` and `pathParameters` are decoded.
public struct HTTPServerRequest: Sendable {
    /// The peer's numeric address and port.
    public struct RemoteAddress: Sendable, Hashable, CustomStringConvertible {
        public var host: String
        public var port: Int

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        /// `127.0.0.1:5000` or `[::1]:5000`.
        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    /// The method token as sent, e.g. `GET` (case is kept: methods are case-sensitive).
    public var method: String
    /// The request target as sent: `/path?query`, an absolute URL, `*`, or an authority.
    public var target: String
    /// The target's path, without the query; `/` for `*` and authority forms.
    public var path: String
    /// The raw query after `?`, or nil when the target has none.
    public var query: String?
    public var version: HTTPVersion
    /// Header fields in arrival order, names spelled as sent.
    public var headers: HTTPHeaders
    /// The whole request body (empty when there was none).
    public var body: Data
    public var remoteAddress: RemoteAddress
    /// Values captured by an `HTTPRouter` pattern (`:name` and `*`), percent-decoded.
    public var pathParameters: [String: String]

    public init(
        method: String, target: String, version: HTTPVersion = .http1_1, headers: HTTPHeaders = HTTPHeaders(),
        body: Data = Data(), remoteAddress: RemoteAddress = RemoteAddress(host: "127.0.0.1", port: 0),
        pathParameters: [String: String] = [:]
    ) {
        self.method = method
        self.target = target
        (self.path, self.query) = Self.split(target: target)
        self.version = version
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.pathParameters = pathParameters
    }

    /// Query items in order, percent-decoded (`+` is kept as a plus sign, as `URLComponents` does).
    public var queryItems: [URLQueryItem] {
        guard let query, !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decode(parts[0])
            return URLQueryItem(name: name, value: parts.count > 1 ? Self.decode(parts[1]) : nil)
        }
    }

    /// The first value of the query item `name`, decoded; nil when absent or valueless.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// True when the client asked to close after this exchange, or speaks HTTP/1.0 without keep-alive.
    public var wantsClose: Bool {
        let tokens = headers.values(for: "Connection").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if tokens.contains("close") { return true }
        if version.major == 1 && version.minor == 0 { return !tokens.contains("keep-alive") }
        return false
    }

    static func decode(_ text: Substring) -> String {
        String(text).removingPercentEncoding ?? String(text)
    }

    /// Path and query of any request-target form.
    static func split(target: String) -> (path: String, query: String?) {
        var rest = Substring(target)
        if !rest.hasPrefix("/") {
            // Absolute form (`http://host/p?q`): drop scheme and authority. `*` and the
            // authority form of CONNECT have no path.
            guard let scheme = rest.range(of: "://") else { return ("/", nil) }
            rest = rest[scheme.upperBound...]
            guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return ("/", nil) }
            rest = rest[slash...]
        }
        guard let mark = rest.firstIndex(of: "?") else { return (rest.isEmpty ? "/" : String(rest), nil) }
        let path = rest[..<mark]
        return (path.isEmpty ? "/" : String(path), String(rest[rest.index(after: mark)...]))
    }
}
