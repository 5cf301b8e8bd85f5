import Foundation

/// Byte-wise text comparison for the matching hot path. Swift's `==` on strings compares by
/// Unicode canonical equivalence, which URLs and header names do not need and which costs more.
enum Bytes {
    /// Whether two strings hold the same bytes.
    @inline(__always)
    static func equal(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        var left = lhs
        var right = rhs
        return left.withUTF8 { a in
            right.withUTF8 { b in
                guard let first = a.baseAddress, let second = b.baseAddress else { return a.count == b.count }
                return memcmp(first, second, a.count) == 0
            }
        }
    }
}
