/// Splitting header values on ASCII separators, byte by byte.
///
/// Header values are split per exchange on the export path (cookies); doing it on UTF-8 bytes
/// rather than Characters keeps that cheap. Separators are ASCII, so a split never lands inside a
/// multi-byte character.
enum ASCIIFields {
    /// The parts of `text` between `separator` bytes, each without surrounding spaces and tabs.
    static func split(_ text: String, separator: UInt8) -> [String] {
        var text = text
        return text.withUTF8 { bytes in
            var parts: [String] = []
            var start = 0
            while start <= bytes.count {
                let end = bytes[start...].firstIndex(of: separator) ?? bytes.count
                parts.append(trimmed(bytes, start, end))
                start = end + 1
            }
            return parts
        }
    }

    /// "name=value" as (name, value), both trimmed; without "=" the value is empty.
    static func splitPair(_ text: String) -> (String, String) {
        var text = text
        return text.withUTF8 { bytes in
            guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { return (trimmed(bytes, 0, bytes.count), "") }
            return (trimmed(bytes, 0, equals), trimmed(bytes, equals + 1, bytes.count))
        }
    }

    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
        var start = start, end = end
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }
}
