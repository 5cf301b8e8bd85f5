/// A host name pattern: `api.example.com` matches that host only; `*.example.com` matches
/// `example.com` and every host below it. Comparison ignores case.
struct HostPattern: Sendable, Hashable {
    let suffix: String
    let isWildcard: Bool

    init(_ pattern: String) {
        let lowered = pattern.lowercased()
        if lowered.hasPrefix("*.") {
            suffix = String(lowered.dropFirst(2))
            isWildcard = true
        } else {
            suffix = lowered
            isWildcard = false
        }
    }

    func matches(_ host: String) -> Bool {
        if host == suffix { return true }
        return isWildcard && host.hasSuffix("." + suffix)
    }
}
