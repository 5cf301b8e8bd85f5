import Foundation

/// Groups URLs by endpoint: `/users/42/orders/9f1c...` becomes `/users/{id}/orders/{id}`.
///
/// Numeric segments, UUIDs and long hexadecimal identifiers are replaced, so that analysis can
/// count calls per endpoint rather than per resource.
public enum URLTemplate {
    public static let placeholder = "{id}"

    /// The template of a path ("/a/1" -> "/a/{id}"). Query and fragment are not part of it.
    public static func template(forPath path: String) -> String {
        guard !path.isEmpty else { return "/" }
        return path.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            isIdentifier(segment) ? placeholder : String(segment)
        }.joined(separator: "/")
    }

    /// The template of a URL string's path; "/" when the URL has none or does not parse.
    public static func template(forURL url: String) -> String {
        guard let components = URLComponents(string: url) else { return "/" }
        return template(forPath: components.percentEncodedPath)
    }

    static func isIdentifier(_ segment: Substring) -> Bool {
        guard !segment.isEmpty else { return false }
        if segment.allSatisfy({ $0.isASCII && $0.isNumber }) { return true }
        if segment.count == 36, UUID(uuidString: String(segment)) != nil { return true }
        if segment.count >= 16, segment.allSatisfy({ $0.isHexDigit }), segment.contains(where: { $0.isNumber }) {
            return true
        }
        return false
    }
}
