import Foundation

/// Changes where a request goes: scheme, host, port, path (regular-expression replace with `$1`
/// capture groups) and query items; or sends it to a fixed IP address while keeping the original
/// `Host` header (bypassing a hijacked DNS).
///
/// Environment switching is a rewrite of scheme and host:
/// ```json
/// {"rewrite": {"scheme": "https", "host": "staging.example.com"}}
/// ```
/// With `hostToIP`, HTTPS to the IP fails certificate name checks unless the server's certificate
/// names that IP: see docs/rules.md.
public struct RewriteAction: Sendable, Hashable, CustomStringConvertible {
    public var scheme: String?
    public var host: String?
    public var port: Int?
    public var path: PathRewrite?
    public var queryEdits: [QueryEdit]
    /// An IPv4 or IPv6 address to connect to instead of the host.
    public var hostToIP: String?

    public init(
        scheme: String? = nil, host: String? = nil, port: Int? = nil, path: PathRewrite? = nil,
        queryEdits: [QueryEdit] = [], hostToIP: String? = nil
    ) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
        self.queryEdits = queryEdits
        self.hostToIP = hostToIP
    }

    /// A regular expression and the replacement for each match, with `$1`... for capture groups.
    public struct PathRewrite: Sendable, Hashable {
        public var regex: RuleRegex
        public var replacement: String

        public init(regex: RuleRegex, replacement: String) {
            self.regex = regex
            self.replacement = replacement
        }
    }

    /// One change to the query; names and values are plain text (encoded when written).
    public enum QueryEdit: Sendable, Hashable, CustomStringConvertible {
        /// Replaces every item of that name by one (or appends it).
        case set(name: String, value: String)
        /// Appends an item.
        case add(name: String, value: String)
        /// Removes every item of that name.
        case remove(name: String)

        public var description: String {
            switch self {
            case .set(let name, let value): return "set \(name)=\(value)"
            case .add(let name, let value): return "add \(name)=\(value)"
            case .remove(let name): return "remove \(name)"
            }
        }
    }

    /// What a rewrite produced.
    public struct Outcome: Sendable, Hashable {
        /// The URL to send the request to.
        public var url: URL
        /// The `Host` header to set (host-to-IP only), e.g. `api.example.com` or `api.example.com:8443`.
        public var hostHeader: String?
        /// Each change in words, for `ExchangeModification`.
        public var changes: [String]
    }

    /// Applies the rewrite to `url`; nil when the result is not a valid URL.
    public func apply(to url: URL) -> Outcome? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
        var changes: [String] = []
        var hostHeader: String?
        if let scheme, scheme != components.scheme {
            changes.append("scheme \(components.scheme ?? "") -> \(scheme)")
            components.scheme = scheme
        }
        if let host, host != components.host {
            changes.append("host \(components.host ?? "") -> \(host)")
            components.host = host
        }
        if let port, port != components.port {
            changes.append("port \(components.port.map(String.init) ?? "default") -> \(port)")
            components.port = port
        }
        if let path {
            let before = components.percentEncodedPath
            let after = path.regex.replacingMatches(in: before, with: path.replacement)
            if after != before {
                changes.append("path \(before) -> \(after)")
                components.percentEncodedPath = after
            }
        }
        if !queryEdits.isEmpty {
            let before = components.percentEncodedQuery
            let after = Self.edit(query: before, with: queryEdits)
            if after != before {
                changes.append("query \(before ?? "") -> \(after ?? "")")
                components.percentEncodedQuery = after
            }
        }
        if let hostToIP {
            let original = components.host ?? ""
            let scheme = (components.scheme ?? "").lowercased()
            if let port = components.port, port != RuleRequest.defaultPort(forScheme: scheme) {
                hostHeader = "\(original):\(port)"
            } else {
                hostHeader = original
            }
            if hostToIP.contains(":") {
                components.percentEncodedHost = "[\(hostToIP)]"
            } else {
                components.host = hostToIP
            }
            changes.append("host-to-IP \(original) -> \(hostToIP) (Host: \(hostHeader ?? original))")
        }
        guard let result = components.url else { return nil }
        return Outcome(url: result, hostHeader: hostHeader, changes: changes)
    }

    /// Applies query edits to a percent-encoded query, leaving untouched items byte for byte.
    static func edit(query: String?, with edits: [QueryEdit]) -> String? {
        var pairs: [(name: String, raw: String)] = (query ?? "")
            .split(separator: "&", omittingEmptySubsequences: true)
            .map { raw in
                let rawName = raw.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                return (String(rawName).removingPercentEncoding ?? String(rawName), String(raw))
            }
        for edit in edits {
            switch edit {
            case .add(let name, let value):
                pairs.append((name, encode(name) + "=" + encode(value)))
            case .set(let name, let value):
                let raw = encode(name) + "=" + encode(value)
                if let first = pairs.firstIndex(where: { $0.name == name }) {
                    pairs[first].raw = raw
                    var index = first + 1
                    while index < pairs.count {
                        if pairs[index].name == name { pairs.remove(at: index) } else { index += 1 }
                    }
                } else {
                    pairs.append((name, raw))
                }
            case .remove(let name):
                pairs.removeAll { $0.name == name }
            }
        }
        return pairs.isEmpty ? nil : pairs.map(\.raw).joined(separator: "&")
    }

    private static let queryValueAllowed: CharacterSet = {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+#")
        return allowed
    }()

    private static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: queryValueAllowed) ?? text
    }

    public var description: String {
        var parts: [String] = []
        if let scheme { parts.append("scheme \(scheme)") }
        if let host { parts.append("host \(host)") }
        if let port { parts.append("port \(port)") }
        if let path { parts.append("path s/\(path.regex.pattern)/\(path.replacement)/") }
        if !queryEdits.isEmpty { parts.append("query " + queryEdits.map(\.description).joined(separator: ", ")) }
        if let hostToIP { parts.append("host-to-IP \(hostToIP)") }
        return "rewrite " + parts.joined(separator: ", ")
    }
}
