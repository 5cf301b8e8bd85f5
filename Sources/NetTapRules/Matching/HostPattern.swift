/// A host name to match: `api.example.com` matches that host only; `*.example.com` matches
/// `example.com` and every host below it (as NetTap's capture host filter does). Case is ignored.
public struct HostPattern: Sendable, Hashable, CustomStringConvertible {
    /// The host (exact) or the domain under the `*.` (wildcard), lowercased.
    public let domain: String
    public let isWildcard: Bool

    public init(_ pattern: String) throws(InvalidPattern) {
        let lowered = pattern.lowercased()
        if lowered.hasPrefix("*.") {
            domain = String(lowered.dropFirst(2))
            isWildcard = true
        } else {
            domain = lowered
            isWildcard = false
        }
        if domain.isEmpty {
            throw InvalidPattern(pattern: pattern, reason: "a host pattern must name a host")
        }
        if domain.contains("*") {
            throw InvalidPattern(pattern: pattern, reason: "'*' is allowed only as a leading \"*.\"")
        }
        // One colon means "host:port"; IPv6 literals have several.
        if domain.contains("/") || domain.filter({ $0 == ":" }).count == 1 {
            throw InvalidPattern(pattern: pattern, reason: "a host pattern is a host name only (no scheme, port or path)")
        }
    }

    /// Whether `host` (already lowercased) matches.
    public func matches(_ host: String) -> Bool {
        if Bytes.equal(host, domain) { return true }
        guard isWildcard, host.utf8.count > domain.utf8.count else { return false }
        return host.hasSuffix(domain) && host.utf8.dropLast(domain.utf8.count).last == UInt8(ascii: ".")
    }

    public var description: String { isWildcard ? "*." + domain : domain }
}
