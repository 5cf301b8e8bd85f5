import Foundation

extension UUID {
    /// The same text as `uuidString` (uppercase, 8-4-4-4-12), written without Foundation's
    /// formatter: that took about 0.7 us of the store's 7 us per exchange of encoding on Linux.
    var storedText: String {
        let digits: StaticString = "0123456789ABCDEF"
        return withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { text in
                digits.withUTF8Buffer { hex in
                    var position = 0
                    for (index, byte) in bytes.enumerated() {
                        if index == 4 || index == 6 || index == 8 || index == 10 {
                            text[position] = UInt8(ascii: "-")
                            position += 1
                        }
                        text[position] = hex[Int(byte >> 4)]
                        text[position + 1] = hex[Int(byte & 0x0f)]
                        position += 2
                    }
                }
                return 36
            }
        }
    }
}
