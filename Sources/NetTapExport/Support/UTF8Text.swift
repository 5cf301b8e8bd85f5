import Foundation

/// Bytes to `String` only when they are valid UTF-8, fast for the common case of ASCII.
///
/// The standard library's generic validating initializer showed up at a tenth of import and export
/// time; pure ASCII needs no validation, and anything else is decoded and compared back, which is
/// exact (decoding repairs invalid input, so the bytes then differ).
enum UTF8Text {
    static func string(_ bytes: UnsafeRawBufferPointer) -> String? {
        let units = bytes.bindMemory(to: UInt8.self)
        if isASCII(bytes) { return String(decoding: units, as: UTF8.self) }
        let decoded = String(decoding: units, as: UTF8.self)
        return decoded.utf8.elementsEqual(units) ? decoded : nil
    }

    static func string(_ data: Data) -> String? {
        data.withUnsafeBytes { string($0) }
    }

    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = bytes.count
        // Eight bytes at a time: any high bit set means a non-ASCII byte.
        while index + 8 <= count {
            if bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            index += 8
        }
        while index < count {
            if bytes[index] >= 0x80 { return false }
            index += 1
        }
        return true
    }
}
