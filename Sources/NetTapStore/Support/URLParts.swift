/// The host and path of a URL string, split by hand.
///
/// Captured URLs are strings that `URL` may reject, and parsing each one with `URLComponents`
/// costs more than storing it; this split is what the `host` and `path` columns need.
struct URLParts: Equatable {
    /// Lowercased host without user info, port or IPv6 brackets; nil when the URL has no authority.
    var host: String?
    /// The path as written (still percent-encoded), "/" when empty.
    var path: String

    init(_ url: String) {
        let utf8 = Array(url.utf8)
        var index = 0
        var host: String?
        if let schemeEnd = Self.find(Array("://".utf8), in: utf8) {
            index = schemeEnd + 3
            let authorityStart = index
            while index < utf8.count, utf8[index] != UInt8(ascii: "/"), utf8[index] != UInt8(ascii: "?"),
                utf8[index] != UInt8(ascii: "#")
            {
                index += 1
            }
            var authority = utf8[authorityStart ..< index]
            if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
                authority = authority[(at + 1)...]
            }
            if authority.first == UInt8(ascii: "["), let close = authority.firstIndex(of: UInt8(ascii: "]")) {
                authority = authority[(authority.startIndex + 1) ..< close]
            } else if let colon = authority.firstIndex(of: UInt8(ascii: ":")) {
                authority = authority[..<colon]
            }
            host = authority.isEmpty ? nil : String(decoding: authority, as: UTF8.self).lowercased()
        }
        let pathStart = index
        while index < utf8.count, utf8[index] != UInt8(ascii: "?"), utf8[index] != UInt8(ascii: "#") {
            index += 1
        }
        let path = String(decoding: utf8[pathStart ..< index], as: UTF8.self)
        self.host = host
        self.path = path.isEmpty ? "/" : path
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0 ... (haystack.count - needle.count) {
            // A scheme holds no "/", "?" or "#": stop looking once the path has begun.
            let byte = haystack[start]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { return nil }
            if haystack[start ..< start + needle.count].elementsEqual(needle) { return start }
        }
        return nil
    }
}
