import Foundation

/// A policy's field names and suffixes as bytes, so that checking a normalized name compares bytes
/// instead of building a String, hashing it and calling Unicode-aware `hasSuffix` once per suffix.
/// The check runs for every header, query item and JSON key of every capture; as Strings it was
/// the largest part of redacting an exchange after scrubbing (BENCHMARKS.md, redaction).
///
/// Exact only for printable ASCII on both sides, where String equality and `hasSuffix` are byte
/// comparisons (no character there combines with its neighbour); `RedactionPolicy` uses it only then.
struct FieldNameMatcher: Sendable, Hashable {
    private let names: [[UInt8]]
    private let suffixes: [[UInt8]]
    /// Whether names are normalized before they are compared (field names); otherwise they are
    /// only lowercased (header names, as `RedactionPolicy.headerNames` holds them).
    private let normalizes: Bool
    /// Whether every name and suffix is printable ASCII, so that bytes decide every printable name.
    let coversPrintableNames: Bool

    /// - Parameter normalizes: compare names normalized (`RedactionPolicy.normalize`); false
    ///   compares them lowercased only.
    init(names: Set<String>, suffixes: Set<String>, normalizes: Bool = true) {
        // Sorted so that equal policies build equal matchers.
        self.names = names.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
        self.suffixes = suffixes.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
        self.normalizes = normalizes
        coversPrintableNames = (self.names + self.suffixes).allSatisfy { $0.allSatisfy(Self.isPrintableASCII) }
    }

    static func isPrintableASCII(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7f
    }

    /// Whether `name`, normalized (`RedactionPolicy.normalize`) or lowercased, is one of the names or
    /// ends with a suffix; nil when that takes String comparison (a name that is not printable ASCII, or a
    /// policy entry that is not). Normalizes into a buffer on the stack, without building a String.
    func match(_ name: String) -> Bool? {
        match(utf8: name.utf8)
    }

    /// `match` for a name given as its UTF-8 bytes, such as a JSON key inside a body.
    func match<Bytes: Collection<UInt8>>(utf8: Bytes) -> Bool? {
        guard coversPrintableNames else { return nil }
        // Native Strings and byte slices are contiguous: walking a pointer is several times faster
        // than a String.UTF8View's iterator, and this runs for every header and JSON key.
        if let answer = utf8.withContiguousStorageIfAvailable({ matchPrintable($0) }) { return answer }
        return matchPrintable(utf8)
    }

    private func matchPrintable<Bytes: Collection<UInt8>>(_ utf8: Bytes) -> Bool? {
        for byte in utf8 where !Self.isPrintableASCII(byte) { return nil }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: utf8.count) { buffer -> Bool in
            let count = RedactionPolicy.foldASCII(utf8, into: buffer, removingSeparators: normalizes)
            return matchFolded(UnsafeBufferPointer(rebasing: buffer[..<count]))
        }
    }

    /// Whether a header name is listed in `listed` (names compared lowercased) or looks like a
    /// secret to `fields` (names and suffixes compared normalized): `listed.match(name) ||
    /// fields.match(name)`, with the name folded once instead of twice. Every response header of
    /// every capture is checked like this. nil when either would answer nil.
    static func matchHeader(_ name: String, listed: FieldNameMatcher, fields: FieldNameMatcher) -> Bool? {
        guard listed.coversPrintableNames, fields.coversPrintableNames, !listed.normalizes, fields.normalizes else { return nil }
        let answer = name.utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
            for byte in bytes where !isPrintableASCII(byte) { return nil }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count) { buffer -> Bool in
                let count = RedactionPolicy.foldASCII(bytes, into: buffer, removingSeparators: false)
                if listed.matchFolded(UnsafeBufferPointer(rebasing: buffer[..<count])) { return true }
                // Normalized in place: the lowercased name without its separators.
                var kept = 0
                for index in 0..<count where !RedactionPolicy.isSeparator(buffer[index]) {
                    buffer[kept] = buffer[index]
                    kept += 1
                }
                return fields.matchFolded(UnsafeBufferPointer(rebasing: buffer[..<kept]))
            }
        }
        return answer ?? nil
    }

    /// Whether `folded`, a name already normalized or lowercased as this matcher compares names,
    /// is one of the names or ends with a suffix.
    private func matchFolded(_ folded: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = folded.count
        // An empty field name is never sensitive (`isSensitiveField`); a header name is
        // compared as it is, so an empty entry would match an empty name.
        guard count > 0, let base = folded.baseAddress else { return !normalizes && names.contains([]) }
        for name in names where name.count == count {
            if Self.equal(base, name) { return true }
        }
        for suffix in suffixes where suffix.count <= count {
            if Self.equal(base + (count - suffix.count), suffix) { return true }
        }
        return false
    }

    /// Whether the `bytes.count` bytes at `start` are `bytes`.
    private static func equal(_ start: UnsafePointer<UInt8>, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            guard let other = buffer.baseAddress else { return true }  // empty: matches anywhere
            return memcmp(start, other, buffer.count) == 0
        }
    }
}
