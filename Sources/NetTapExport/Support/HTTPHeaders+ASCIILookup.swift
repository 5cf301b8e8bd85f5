import NetTapCore

extension HTTPHeaders {
    /// The first value of the field named `lowercasedName`, compared byte by byte without ASCII case.
    ///
    /// Export looks up a few fields per exchange; `HTTPHeaders`' own lookup goes through Foundation's
    /// locale-aware comparison, which was a fifth of HAR export time. Field names are ASCII tokens
    /// (RFC 9110), so ASCII folding is exact for them.
    func firstValue(asciiLowercased lowercasedName: String) -> String? {
        fields.first { Self.nameMatches($0.name, lowercasedName) }?.value
    }

    /// Every value of the field named `lowercasedName`, in order.
    func values(asciiLowercased lowercasedName: String) -> [String] {
        fields.filter { Self.nameMatches($0.name, lowercasedName) }.map(\.value)
    }

    static func nameMatches(_ name: String, _ lowercasedName: String) -> Bool {
        guard name.utf8.count == lowercasedName.utf8.count else { return false }
        return zip(name.utf8, lowercasedName.utf8).allSatisfy { byte, lower in
            (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) == lower
        }
    }
}
