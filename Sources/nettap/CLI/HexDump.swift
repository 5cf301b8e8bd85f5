import Foundation

/// A classic hex dump (offset, 16 bytes in hex, the printable ASCII) of the first bytes of a body.
enum HexDump {
    /// The dump of at most `limit` bytes of `data`, one line per 16 bytes.
    static func lines(_ data: Data, limit: Int = 256) -> [String] {
        let bytes = [UInt8](data.prefix(limit))
        var lines: [String] = []
        var offset = 0
        while offset < bytes.count {
            let row = bytes[offset..<min(offset + 16, bytes.count)]
            var hex = row.map { String(format: "%02x", $0) }
            hex += Array(repeating: "  ", count: 16 - row.count)
            let left = hex[0..<8].joined(separator: " ")
            let right = hex[8..<16].joined(separator: " ")
            let ascii = String(decoding: row.map { (0x20..<0x7F).contains($0) ? $0 : UInt8(ascii: ".") }, as: UTF8.self)
            lines.append(String(format: "%08x", offset) + "  \(left)  \(right)  |\(ascii)|")
            offset += 16
        }
        return lines
    }
}
