import Foundation

/// JSON text built byte by byte, with commas placed by a small scope stack.
///
/// Written by hand rather than through `JSONEncoder` for two reasons: HAR export needs a fixed key
/// order (so that two exports of the same exchanges are byte-identical) and it must keep up with a
/// million exchanges, which a tree of dictionaries per entry would not.
struct JSONOutput {
    private(set) var bytes: [UInt8] = []
    /// One flag per open object or array: whether the next member needs a comma before it.
    private var needsComma: [Bool] = []

    init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
    }

    // MARK: Structure

    mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma.append(false)
    }

    mutating func endObject() {
        needsComma.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma.append(false)
    }

    mutating func endArray() {
        needsComma.removeLast()
        bytes.append(UInt8(ascii: "]"))
    }

    /// Writes `"name":`; the value written next belongs to it.
    mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        valueFollowsKey = true
    }

    /// Writes a key that is not known at compile time (label names), escaped.
    mutating func key(_ name: String) {
        separate()
        appendEscaped(name)
        bytes.append(UInt8(ascii: ":"))
        valueFollowsKey = true
    }

    /// The next value gets no comma: the caller wrote its own separator with `raw(_:)`.
    mutating func suppressNextSeparator() {
        valueFollowsKey = true
    }

    /// True between a key and its value, so that the value does not get a comma of its own.
    private var valueFollowsKey = false

    private mutating func separate() {
        if valueFollowsKey {
            valueFollowsKey = false
            return
        }
        guard let last = needsComma.last else { return }
        if last { bytes.append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
    }

    /// Appends bytes that are already valid JSON text (a separator, a newline between entries).
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    // MARK: Values

    mutating func string(_ value: String) {
        separate()
        appendEscaped(value)
    }

    mutating func bool(_ value: Bool) {
        separate()
        raw(value ? "true" : "false")
    }

    mutating func null() {
        separate()
        raw("null")
    }

    mutating func int(_ value: Int64) {
        separate()
        appendDigits(value)
    }

    mutating func int(_ value: Int) {
        int(Int64(value))
    }

    /// A duration given in microseconds, written in milliseconds with at most three decimals
    /// ("12.345", "12.3", "12", "-1"). Integer arithmetic keeps it exact and reproducible.
    mutating func milliseconds(micros: Int64) {
        separate()
        if micros < 0 {
            bytes.append(UInt8(ascii: "-"))
        }
        let magnitude = micros.magnitude
        appendDigits(Int64(magnitude / 1000))
        var fraction = Int(magnitude % 1000)
        guard fraction != 0 else { return }
        bytes.append(UInt8(ascii: "."))
        var digits = 3
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        appendPadded(fraction, width: digits)
    }

    /// An ISO 8601 UTC timestamp from microseconds since 1970, as a JSON string.
    mutating func timestamp(micros: Int64) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        ISOTimestamp.append(micros: micros, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    // MARK: Helpers

    private mutating func appendDigits(_ value: Int64) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
        }
        var magnitude = value.magnitude
        if magnitude == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        var scratch: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                      UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &scratch) { buffer in
            while magnitude > 0 {
                buffer[19 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            bytes.append(contentsOf: buffer[(20 - count)...])
        }
    }

    private mutating func appendPadded(_ value: Int, width: Int) {
        var divisor = 1
        for _ in 1..<max(width, 1) { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    private mutating func appendEscaped(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if runStart < index {
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                }
                appendEscape(for: byte)
                runStart = index + 1
            }
            if runStart < utf8.count {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscape(for byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        default:
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                      hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
        }
    }
}
