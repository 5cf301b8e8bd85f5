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
        headers.values(for: "cookie").flatMap { value in
            ASCIIFields.split(value, separator: UInt8(ascii: ";")).compactMap { pair -> HARCookie? in
                guard !pair.isEmpty else { return nil }
                let (name, value) = ASCIIFields.splitPair(pair)
                return HARCookie(name: name, value: value)
            }
        }
    }

    /// One cookie per `Set-Cookie` header, with its attributes.
    static func responseCookies(in headers: HTTPHeaders) -> [HARCookie] {
        headers.values(for: "set-cookie").compactMap(parseSetCookie)
    }

    static func parseSetCookie(_ header: String) -> HARCookie? {
        let parts = ASCIIFields.split(header, separator: UInt8(ascii: ";"))
        guard let first = parts.first, !first.isEmpty else { return nil }
        let (name, value) = ASCIIFields.splitPair(first)
        var cookie = HARCookie(name: name, value: value)
        for part in parts.dropFirst() {
            let (attribute, attributeValue) = ASCIIFields.splitPair(part)
            if HTTPHeaders.namesEqual(attribute, "path") {
                cookie.path = attributeValue
            } else if HTTPHeaders.namesEqual(attribute, "domain") {
                cookie.domain = attributeValue
            } else if HTTPHeaders.namesEqual(attribute, "expires") {
                cookie.expires = CookieDate.parse(attributeValue)
            } else if HTTPHeaders.namesEqual(attribute, "httponly") {
                cookie.httpOnly = true
            } else if HTTPHeaders.namesEqual(attribute, "secure") {
                cookie.secure = true
            } else if HTTPHeaders.namesEqual(attribute, "samesite") {
                cookie.sameSite = attributeValue
            }
        }
        return cookie
    }
}
