import Foundation

/// Writes JSON text straight into bytes, for the columns the store fills on every insert.
///
/// Foundation's `JSONEncoder` costs more per exchange than the SQLite insert itself; these
/// columns have a few fixed shapes, so they are written by hand and read back with `JSONDecoder`.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    private var needsComma: [Bool] = []

    init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Bytes written so far: where the next value starts, for a writer shared by several columns.
    var count: Int { bytes.count }

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

    /// Writes `"name":` inside an object; the value follows.
    mutating func key(_ name: String) {
        separate()
        writeString(name)
        bytes.append(UInt8(ascii: ":"))
        // The value that follows must not add a comma of its own.
        needsComma[needsComma.count - 1] = false
    }

    mutating func string(_ value: String) {
        separate()
        writeString(value)
    }

    mutating func number(_ value: Double) {
        separate()
        // Swift prints the shortest text that reads back as the same Double; JSON has no NaN or infinity.
        if value.isFinite {
            bytes.append(contentsOf: value.description.utf8)
        } else {
            bytes.append(contentsOf: "null".utf8)
        }
    }

    mutating func integer(_ value: Int64) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    mutating func field(_ name: String, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    mutating func field(_ name: String, _ value: Double?) {
        guard let value else { return }
        key(name)
        number(value)
    }

    mutating func field(_ name: String, _ value: Int64?) {
        guard let value else { return }
        key(name)
        integer(value)
    }

    mutating func field(_ name: String, _ value: Bool?) {
        guard let value else { return }
        key(name)
        bool(value)
    }

    /// Appends `text` as it is, for a fixed shape written by hand (`ExchangeRecord.json(_: HTTPHeaders)`):
    /// it does not take part in the commas that the structured calls above add.
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends `value`'s UTF-8 as it is: a plain text column, not JSON.
    mutating func plain(_ value: String) {
        bytes.append(contentsOf: value.utf8)
    }

    /// Appends `value` quoted and escaped, without a comma; see `raw(_:)`.
    mutating func quoted(_ value: String) {
        writeString(value)
    }

    private mutating func separate() {
        guard let last = needsComma.last else { return }
        if last { bytes.append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Writes `value` quoted and escaped. Runs that need no escaping (in header names and values,
    /// nearly everything) are copied in one go from the string's UTF-8 storage.
    private mutating func writeString(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var runStart = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart ..< index]))
                runStart = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case 0x0a: bytes.append(UInt8(ascii: "n"))
                case 0x0d: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                default:
                    bytes.append(contentsOf: "u00".utf8)
                    bytes.append(Self.hexDigits[Int(byte >> 4)])
                    bytes.append(Self.hexDigits[Int(byte & 0x0f)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
