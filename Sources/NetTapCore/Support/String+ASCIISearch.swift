extension StringProtocol {
    /// Whether `lowercasedNeedle` (ASCII, lowercase) occurs in this text, ignoring ASCII case.
    ///
    /// For media types and other protocol tokens on the capture path, where Foundation's
    /// `contains(_:)` (a locale-aware `range(of:)`) was a measurable share of each capture.
    /// Reads both strings' UTF-8 in place: copying them into arrays was two allocations a call,
    /// a third of all the allocations of building an exchange.
    func containsASCIICaseInsensitive(_ lowercasedNeedle: String) -> Bool {
        // Nil when either string has no contiguous UTF-8 (a bridged string); then through copies.
        let inPlace = utf8.withContiguousStorageIfAvailable { haystack in
            lowercasedNeedle.utf8.withContiguousStorageIfAvailable { Self.containsFolded($0, in: haystack) }
        }
        return inPlace.flatMap { $0 } ?? Self.containsFolded(Array(lowercasedNeedle.utf8), in: Array(utf8))
    }

    private static func containsFolded<Needle: RandomAccessCollection, Haystack: RandomAccessCollection>(
        _ needle: Needle, in haystack: Haystack
    ) -> Bool where Needle.Element == UInt8, Haystack.Element == UInt8, Needle.Index == Int, Haystack.Index == Int {
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        let needleStart = needle.startIndex
        for start in haystack.startIndex...(haystack.endIndex - needle.count) {
            var matched = true
            for offset in 0..<needle.count {
                if haystack[start + offset].asciiLowercased != needle[needleStart + offset] {
                    matched = false
                    break
                }
            }
            if matched { return true }
        }
        return false
    }
}

extension UInt8 {
    /// This byte with an ASCII capital letter turned into its small letter; any other byte as it is.
    var asciiLowercased: UInt8 {
        self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z") ? self | 0x20 : self
    }
}
