import Foundation

/// Re-indents a JSON text for `nettap show` without parsing it into values, so that member order,
/// number spelling and string escapes stay exactly as the server sent them.
enum JSONIndenter {
    /// `data` indented by two spaces per level, or nil when it is not a JSON document.
    static func indent(_ data: Data) -> String? {
        guard (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil else { return nil }
        let bytes = [UInt8](data)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 4)
        var depth = 0
        var inString = false
        var escaped = false
        var index = 0

        func newline() {
            out.append(0x0A)
            out.append(contentsOf: repeatElement(0x20, count: depth * 2))
        }
        /// The next byte after `position` that is not JSON whitespace.
        func nextSignificant(after position: Int) -> UInt8? {
            var next = position + 1
            while next < bytes.count, isWhitespace(bytes[next]) { next += 1 }
            return next < bytes.count ? bytes[next] : nil
        }

        while index < bytes.count {
            let byte = bytes[index]
            defer { index += 1 }
            if inString {
                out.append(byte)
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                out.append(byte)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                out.append(byte)
                let close = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if nextSignificant(after: index) == close {
                    // Empty container: keep `{}` / `[]` on one line.
                    while bytes[index] != close { index += 1 }
                    out.append(close)
                } else {
                    depth += 1
                    newline()
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                newline()
                out.append(byte)
            case UInt8(ascii: ","):
                out.append(byte)
                newline()
            case UInt8(ascii: ":"):
                out.append(contentsOf: [byte, 0x20])
            default:
                if !isWhitespace(byte) { out.append(byte) }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
