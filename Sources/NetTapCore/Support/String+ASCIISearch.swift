extension StringProtocol {
    /// Whether `lowercasedNeedle` (ASCII, lowercase) occurs in this text, ignoring ASCII case.
    ///
    /// For media types and other protocol tokens on the capture path, where Foundation's
    /// `contains(_:)` (a locale-aware `range(of:)`) was a measurable share of each capture.
    func containsASCIICaseInsensitive(_ lowercasedNeedle: String) -> Bool {
        let needle = Array(lowercasedNeedle.utf8)
        guard !needle.isEmpty else { return true }
        let haystack = Array(utf8)
        guard haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) {
            var matched = true
            for offset in 0..<needle.count {
                var byte = haystack[start + offset]
                if byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") { byte |= 0x20 }
                if byte != needle[offset] {
                    matched = false
                    break
                }
            }
            if matched { return true }
        }
        return false
    }
}
