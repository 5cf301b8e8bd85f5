import Foundation

/// Groups URLs by endpoint: `/users/42/orders/9f1c...` becomes `/users/{id}/orders/{id}`.
///
/// Numeric segments, UUIDs and long hexadecimal identifiers are replaced, so that analysis can
/// count calls per endpoint rather than per resource.
public enum URLTemplate {
    public static let placeholder = "{id}"

    /// The template of a path ("/a/1" -> "/a/{id}"). Query and fragment are not part of it.
    ///
    /// Works on the path's UTF-8 bytes (the store computes one per exchange written): a path with
    /// nothing to replace comes back as it is, without being split or copied.
    public static func template(forPath path: String) -> String {
        guard !path.isEmpty else { return "/" }
        var path = path
        let replaced = path.withUTF8 { bytes -> [UInt8]? in
            var output: [UInt8]?
            var segmentStart = 0
            for index in 0 ... bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "/") {
                let segment = UnsafeBufferPointer(rebasing: bytes[segmentStart ..< index])
                if isIdentifier(segment) {
                    if output == nil {
                        output = Array(bytes[0 ..< segmentStart])
                        output?.reserveCapacity(bytes.count + placeholder.utf8.count)
                    }
                    output?.append(contentsOf: placeholder.utf8)
                } else {
                    output?.append(contentsOf: segment)
                }
                if index < bytes.count { output?.append(UInt8(ascii: "/")) }
                segmentStart = index + 1
            }
            return output
        }
        return replaced.map { String(decoding: $0, as: UTF8.self) } ?? path
    }

    /// The template of a URL string's path; "/" when the URL has none or does not parse.
    public static func template(forURL url: String) -> String {
        guard let components = URLComponents(string: url) else { return "/" }
        return template(forPath: components.percentEncodedPath)
    }

    /// Whether a path segment names one resource: all ASCII digits, a UUID (8-4-4-4-12 hex
    /// digits), or 16 or more hex digits with at least one digit among them.
    static func isIdentifier(_ segment: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !segment.isEmpty else { return false }
        if segment.allSatisfy(isDigit) { return true }
        if segment.count == 36 {
            return segment.indices.allSatisfy { index in
                [8, 13, 18, 23].contains(index) ? segment[index] == UInt8(ascii: "-") : isHexDigit(segment[index])
            }
        }
        return segment.count >= 16 && segment.allSatisfy(isHexDigit) && segment.contains(where: isDigit)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
    }
}
