import NetTapCore

/// A cookie as HAR lists it, parsed from `Cookie` (request) or `Set-Cookie` (response) headers.
///
/// Export derives HAR's `cookies` arrays from the headers, so the headers stay the single source
/// of truth; import ignores `cookies` for the same reason.
struct HARCookie: Equatable, Sendable {
    var name: String
    var value: String
    var path: String?
    var domain: String?
    /// Expiry in microseconds since 1970, when the `Expires` attribute parses.
    var expires: Int64?
    var httpOnly = false
    var secure = false
    var sameSite: String?

    /// Every `name=value` pair of every `Cookie` header, in order.
    static func requestCookies(in headers: HTTPHeaders) -> [HARCookie] {
        headers.values(for: "Cookie").flatMap { value in
            value.split(separator: ";").compactMap { pair -> HARCookie? in
                let trimmed = pair.trimmingSpaces()
                guard !trimmed.isEmpty else { return nil }
                let (name, value) = splitPair(trimmed)
                return HARCookie(name: name, value: value)
            }
        }
    }

    /// One cookie per `Set-Cookie` header, with its attributes.
    static func responseCookies(in headers: HTTPHeaders) -> [HARCookie] {
        headers.values(for: "Set-Cookie").compactMap(parseSetCookie)
    }

    static func parseSetCookie(_ header: String) -> HARCookie? {
        var parts = header.split(separator: ";", omittingEmptySubsequences: false).makeIterator()
        guard let first = parts.next()?.trimmingSpaces(), !first.isEmpty else { return nil }
        let (name, value) = splitPair(first)
        var cookie = HARCookie(name: name, value: value)
        while let part = parts.next() {
            let (attribute, attributeValue) = splitPair(part.trimmingSpaces())
            switch attribute.lowercased() {
            case "path": cookie.path = attributeValue
            case "domain": cookie.domain = attributeValue
            case "expires": cookie.expires = CookieDate.parse(attributeValue)
            case "httponly": cookie.httpOnly = true
            case "secure": cookie.secure = true
            case "samesite": cookie.sameSite = attributeValue
            default: break
            }
        }
        return cookie
    }

    private static func splitPair(_ text: String) -> (String, String) {
        guard let equals = text.firstIndex(of: "=") else { return (text, "") }
        return (String(text[..<equals]).trimmingSpaces(), String(text[text.index(after: equals)...]).trimmingSpaces())
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (no Foundation character sets on the hot path).
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }),
              let last = lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(self[first...last])
    }
}
