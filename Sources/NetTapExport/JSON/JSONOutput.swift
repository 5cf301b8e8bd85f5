import Foundation

/// JSON text built byte by byte, with commas placed by a small scope stack.
///
/// Written by hand rather than through `JSONEncoder` for two reasons: HAR export needs a fixed key
/// order (so that two exports of the same exchanges are byte-identical) and it must keep up with a
/// million exchanges, which a tree of dictionaries per entry would not.
///
/// The bytes live in one growable allocation that this value owns (it is noncopyable, so the
/// allocation has exactly one owner and is freed in `deinit`): appending through `[UInt8]` cost a
/// uniqueness check and a generic call per piece, a third of export time.
struct JSONOutput: ~Copyable {
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Bytes written so far.
    private(set) var count = 0
    /// One flag per open object or array: whether the next member needs a comma before it.
    private var needsComma: [Bool] = []
    /// True between a key and its value, so that the value does not get a comma of its own.
    private var valueFollowsKey = false

    init(capacity: Int = 4096) {
        self.capacity = max(capacity, 64)
        storage = UnsafeMutablePointer<UInt8>.allocate(capacity: self.capacity)
    }

    deinit {
        storage.deallocate()
    }

    /// A copy of the bytes written so far.
    var data: Data {
        Data(bytes: storage, count: count)
    }

    /// Forgets the bytes (after they were handed on) but keeps the allocation and the open scopes.
    mutating func removeAll() {
        count = 0
    }

    // MARK: Structure

    mutating func beginObject() {
        separate()
        append(UInt8(ascii: "{"))
        needsComma.append(false)
    }

    mutating func endObject() {
        needsComma.removeLast()
        append(UInt8(ascii: "}"))
    }

    mutating func beginArray() {
        separate()
        append(UInt8(ascii: "["))
        needsComma.append(false)
    }

    mutating func endArray() {
        needsComma.removeLast()
        append(UInt8(ascii: "]"))
    }

    /// Writes `"name":`; the value written next belongs to it.
    mutating func key(_ name: StaticString) {
        separate()
        append(UInt8(ascii: "\""))
        append(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        append(UInt8(ascii: "\""))
        append(UInt8(ascii: ":"))
        valueFollowsKey = true
    }

    /// Writes a key that is not known at compile time (label names), escaped.
    mutating func key(_ name: String) {
        separate()
        appendEscaped(name)
        append(UInt8(ascii: ":"))
        valueFollowsKey = true
    }

    /// The next value gets no comma: the caller wrote its own separator with `raw(_:)`.
    mutating func suppressNextSeparator() {
        valueFollowsKey = true
    }

    @inline(__always)
    private mutating func separate() {
        if valueFollowsKey {
            valueFollowsKey = false
            return
        }
        guard let last = needsComma.last else { return }
        if last { append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
    }

    /// Appends bytes that are already valid JSON text (a separator, a newline between entries).
    mutating func raw(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    // MARK: Members

    /// `"key":"value"`.
    mutating func member(_ key: StaticString, _ value: String) {
        self.key(key)
        string(value)
    }

    /// `"key":"value"`, or nothing when `value` is nil.
    mutating func member(_ key: StaticString, ifPresent value: String?) {
        guard let value else { return }
        member(key, value)
    }

    /// `"key":123`.
    mutating func member(_ key: StaticString, int value: Int64) {
        self.key(key)
        int(value)
    }

    mutating func member(_ key: StaticString, int value: Int) {
        member(key, int: Int64(value))
    }

    /// `"key":true`.
    mutating func member(_ key: StaticString, bool value: Bool) {
        self.key(key)
        bool(value)
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
    /// ("12.345", "12.3", "12"). Integer arithmetic keeps it exact and reproducible.
    mutating func milliseconds(micros: Int64) {
        separate()
        if micros < 0 {
            append(UInt8(ascii: "-"))
        }
        let magnitude = micros.magnitude
        appendDigits(Int64(magnitude / 1000))
        var fraction = Int64(magnitude % 1000)
        guard fraction != 0 else { return }
        append(UInt8(ascii: "."))
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
        append(UInt8(ascii: "\""))
        timestampText(micros: micros)
        append(UInt8(ascii: "\""))
    }

    /// "2026-05-28T20:26:40.250Z": three fractional digits when the instant falls on a millisecond,
    /// six otherwise, so no digit is lost. No quotes, no separator.
    mutating func timestampText(micros: Int64) {
        let parts = ISOTimestamp.Parts(micros: micros)
        appendPadded(parts.year, width: 4)
        append(UInt8(ascii: "-"))
        appendPadded(parts.month, width: 2)
        append(UInt8(ascii: "-"))
        appendPadded(parts.day, width: 2)
        append(UInt8(ascii: "T"))
        appendPadded(parts.hour, width: 2)
        append(UInt8(ascii: ":"))
        appendPadded(parts.minute, width: 2)
        append(UInt8(ascii: ":"))
        appendPadded(parts.second, width: 2)
        append(UInt8(ascii: "."))
        if parts.fraction % 1000 == 0 {
            appendPadded(parts.fraction / 1000, width: 3)
        } else {
            appendPadded(parts.fraction, width: 6)
        }
        append(UInt8(ascii: "Z"))
    }

    // MARK: Bytes

    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(extra) }
    }

    private mutating func grow(_ extra: Int) {
        let newCapacity = max(capacity * 2, count + extra)
        let newStorage = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newStorage.update(from: storage, count: count)
        storage.deallocate()
        storage = newStorage
        capacity = newCapacity
    }

    @inline(__always)
    private mutating func append(_ byte: UInt8) {
        reserve(1)
        storage[count] = byte
        count += 1
    }

    @inline(__always)
    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (storage + count).update(from: base, count: bytes.count)
        count += bytes.count
    }

    private mutating func appendDigits(_ value: Int64) {
        if value < 0 {
            append(UInt8(ascii: "-"))
        }
        var magnitude = value.magnitude
        var digits = 1
        var power: UInt64 = 10
        while digits < 20, magnitude >= power {
            digits += 1
            if power > UInt64.max / 10 { break }
            power *= 10
        }
        reserve(digits)
        for position in stride(from: digits - 1, through: 0, by: -1) {
            storage[count + position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
        }
        count += digits
    }

    /// Appends `value` (0 ≤ value < 10^width) as exactly `width` digits.
    private mutating func appendPadded(_ value: Int64, width: Int) {
        reserve(width)
        var rest = value
        for position in stride(from: width - 1, through: 0, by: -1) {
            storage[count + position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
        count += width
    }

    private mutating func appendEscaped(_ value: String) {
        // Contiguous (large) strings are scanned in place; small ones, stored inline in the String
        // value, byte by byte (`withUTF8` would copy them out first).
        let done: Void? = value.utf8.withContiguousStorageIfAvailable { appendEscaped(utf8: $0) }
        guard done == nil else { return }
        reserve(value.utf8.count + 2)
        append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                append(byte)
            } else {
                appendEscape(for: byte)
            }
        }
        append(UInt8(ascii: "\""))
    }

    private mutating func appendEscaped(utf8: UnsafeBufferPointer<UInt8>) {
        let raw = UnsafeRawBufferPointer(utf8)
        reserve(utf8.count + 2)
        append(UInt8(ascii: "\""))
        var runStart = 0
        var index = 0
        let length = utf8.count
        while index < length {
            // Eight bytes at a time while none of them needs escaping (most text).
            if index + 8 <= length, !Self.needsEscape(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                index += 8
                continue
            }
            let byte = utf8[index]
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            append(UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            appendEscape(for: byte)
            index += 1
            runStart = index
        }
        append(UnsafeBufferPointer(rebasing: utf8[runStart..<length]))
        append(UInt8(ascii: "\""))
    }

    /// Whether any of eight bytes is a control character, '"' or '\\' (bit tricks on a word:
    /// a byte is zero after XOR with the character it equals, and "less than 0x20" borrows).
    @inline(__always)
    private static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ value: UInt64) -> Bool { (value &- ones) & ~value & highs != 0 }
        let below20 = (word &- ones &* 0x20) & ~word & highs != 0
        return below20 || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C))
    }

    private mutating func appendEscape(for byte: UInt8) {
        append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): append(UInt8(ascii: "\\"))
        case 0x0A: append(UInt8(ascii: "n"))
        case 0x0D: append(UInt8(ascii: "r"))
        case 0x09: append(UInt8(ascii: "t"))
        case 0x08: append(UInt8(ascii: "b"))
        case 0x0C: append(UInt8(ascii: "f"))
        default:
            let hex: StaticString = "0123456789abcdef"
            append(UInt8(ascii: "u"))
            append(UInt8(ascii: "0"))
            append(UInt8(ascii: "0"))
            append(hex.utf8Start[Int(byte >> 4)])
            append(hex.utf8Start[Int(byte & 0x0F)])
        }
    }
}
