import Foundation

/// A strict RFC 8259 parser over bytes, written for import: it reports the line and column of a
/// syntax error, parses one array element at a time so that a large HAR file never becomes one
/// tree in memory, and limits nesting so that hostile input cannot exhaust the stack.
struct JSONParser {
    private let bytes: UnsafeRawBufferPointer
    private(set) var offset: Int
    /// Deeper nesting than any HAR or exchange needs is refused rather than risking the stack.
    static let maximumDepth = 256

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        self.offset = 0
        // A UTF-8 byte order mark, as some Windows tools write, is not part of the JSON.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            offset = 3
        }
    }

    /// Parses a whole document: one value and nothing after it but whitespace.
    static func parseDocument(_ bytes: UnsafeRawBufferPointer) throws(JSONSyntaxError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        let value = try parser.parseValue()
        try parser.expectEnd()
        return value
    }

    // MARK: Incremental reading, used to stream the entries of a HAR file

    /// Consumes `{`; then call `nextMember()` until it returns nil.
    mutating func beginObject() throws(JSONSyntaxError) {
        skipWhitespace()
        try expect(UInt8(ascii: "{"), what: "'{'")
        pendingFirst = true
    }

    /// Reads the next member's key and its ':' (the value is read by the caller), or consumes
    /// the closing `}` and returns nil.
    mutating func nextMember() throws(JSONSyntaxError) -> String? {
        skipWhitespace()
        if pendingFirst {
            pendingFirst = false
            if peek() == UInt8(ascii: "}") {
                offset += 1
                return nil
            }
        } else {
            switch peek() {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "}"):
                offset += 1
                return nil
            default: throw error("expected ',' or '}' after an object member, found \(describeNext())")
            }
        }
        return try parseMemberKey()
    }

    /// `"key":` with the whitespace around it; the value follows.
    private mutating func parseMemberKey() throws(JSONSyntaxError) -> String {
        skipWhitespace()
        guard peek() == UInt8(ascii: "\"") else {
            throw error("expected a string key in double quotes, found \(describeNext())")
        }
        let key = try parseString()
        skipWhitespace()
        try expect(UInt8(ascii: ":"), what: "':' after an object key")
        return key
    }

    /// Consumes `[`; then call `nextElement()` until it returns false.
    mutating func beginArray() throws(JSONSyntaxError) {
        skipWhitespace()
        try expect(UInt8(ascii: "["), what: "'['")
        pendingFirst = true
    }

    /// True when another element follows (positioned at it), false after consuming `]`.
    mutating func nextElement() throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        if pendingFirst {
            pendingFirst = false
            if peek() == UInt8(ascii: "]") {
                offset += 1
                return false
            }
            return true
        }
        switch peek() {
        case UInt8(ascii: ","):
            offset += 1
            return true
        case UInt8(ascii: "]"):
            offset += 1
            return false
        default:
            throw error("expected ',' or ']' after an array element, found \(describeNext())")
        }
    }

    private var pendingFirst = false

    /// The byte that starts the next value, after whitespace (nil at the end).
    mutating func peekValueStart() -> UInt8? {
        skipWhitespace()
        return peek()
    }

    /// Fails unless only whitespace remains.
    mutating func expectEnd() throws(JSONSyntaxError) {
        skipWhitespace()
        if offset < bytes.count {
            throw error("unexpected \(describeNext()) after the end of the JSON value")
        }
    }

    // MARK: Values

    mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        try parseValue(depth: 0)
    }

    private mutating func parseValue(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth < Self.maximumDepth else {
            throw error("nesting deeper than \(Self.maximumDepth) levels")
        }
        skipWhitespace()
        guard let byte = peek() else { throw error("unexpected end of input, expected a value") }
        switch byte {
        case UInt8(ascii: "{"):
            offset += 1
            var members: [(key: String, value: JSONValue)] = []
            skipWhitespace()
            if peek() == UInt8(ascii: "}") {
                offset += 1
                return .object(JSONMembers(members))
            }
            while true {
                let key = try parseMemberKey()
                members.append((key: key, value: try parseValue(depth: depth + 1)))
                skipWhitespace()
                switch peek() {
                case UInt8(ascii: ","): offset += 1
                case UInt8(ascii: "}"):
                    offset += 1
                    return .object(JSONMembers(members))
                default: throw error("expected ',' or '}' after an object member, found \(describeNext())")
                }
            }
        case UInt8(ascii: "["):
            offset += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if peek() == UInt8(ascii: "]") {
                offset += 1
                return .array(elements)
            }
            while true {
                elements.append(try parseValue(depth: depth + 1))
                skipWhitespace()
                switch peek() {
                case UInt8(ascii: ","): offset += 1
                case UInt8(ascii: "]"):
                    offset += 1
                    return .array(elements)
                default: throw error("expected ',' or ']' after an array element, found \(describeNext())")
                }
            }
        case UInt8(ascii: "\""):
            return .string(try parseString())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try parseNumber())
        default:
            throw error("expected a value, found \(describeNext())")
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let start = offset
        var matched = true
        word.withUTF8Buffer { expected in
            for (index, byte) in expected.enumerated() {
                guard start + index < bytes.count, bytes[start + index] == byte else {
                    matched = false
                    return
                }
            }
        }
        guard matched else { throw error("expected a value, found \(describeNext())") }
        offset += word.utf8CodeUnitCount
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> Double {
        let start = offset
        if peek() == UInt8(ascii: "-") { offset += 1 }
        guard let first = peek(), isDigit(first) else { throw error("expected a digit in a number") }
        if first == UInt8(ascii: "0") {
            offset += 1
            if let next = peek(), isDigit(next) { throw error("a number must not start with a leading zero") }
        } else {
            skipDigits()
        }
        if peek() == UInt8(ascii: ".") {
            offset += 1
            guard let next = peek(), isDigit(next) else { throw error("expected a digit after the decimal point") }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            offset += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { offset += 1 }
            guard let next = peek(), isDigit(next) else { throw error("expected a digit in the exponent") }
            skipDigits()
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            offset = start
            throw error("number \(text) is out of range")
        }
        return value
    }

    private mutating func skipDigits() {
        while let byte = peek(), isDigit(byte) { offset += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// Parses a string starting at its opening quote. A string without escapes (most of them) is
    /// made straight from the file's bytes; escapes switch to building a copy.
    private mutating func parseString() throws(JSONSyntaxError) -> String {
        let quote = offset
        offset += 1
        let start = offset
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                offset += 1
                guard let string = UTF8Text.string(UnsafeRawBufferPointer(rebasing: bytes[start..<(offset - 1)])) else {
                    offset = quote
                    throw error("string is not valid UTF-8")
                }
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 {
                throw error("control character U+\(hex(byte)) must be escaped in a string")
            }
            offset += 1
        }
        var result = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[start..<offset]))
        var runStart = offset
        while true {
            guard offset < bytes.count else {
                offset = quote
                throw error("string is not terminated")
            }
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                result.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<offset]))
                offset += 1
                break
            }
            if byte == UInt8(ascii: "\\") {
                result.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<offset]))
                try parseEscape(into: &result)
                runStart = offset
                continue
            }
            if byte < 0x20 {
                throw error("control character U+\(hex(byte)) must be escaped in a string")
            }
            offset += 1
        }
        guard let string = result.withUnsafeBytes({ UTF8Text.string($0) }) else {
            offset = quote
            throw error("string is not valid UTF-8")
        }
        return string
    }

    private mutating func parseEscape(into result: inout [UInt8]) throws(JSONSyntaxError) {
        offset += 1
        guard let byte = peek() else { throw error("string is not terminated") }
        offset += 1
        switch byte {
        case UInt8(ascii: "\""): result.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): result.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): result.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): result.append(0x08)
        case UInt8(ascii: "f"): result.append(0x0C)
        case UInt8(ascii: "n"): result.append(0x0A)
        case UInt8(ascii: "r"): result.append(0x0D)
        case UInt8(ascii: "t"): result.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard peek() == UInt8(ascii: "\\"), offset + 1 < bytes.count, bytes[offset + 1] == UInt8(ascii: "u")
                else { throw error("unpaired surrogate \\u\(String(scalar, radix: 16)) in a string") }
                offset += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw error("unpaired surrogate \\u\(String(scalar, radix: 16)) in a string")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw error("unpaired surrogate \\u\(String(scalar, radix: 16)) in a string")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
            UTF8.encode(unicode) { result.append($0) }
        default:
            offset -= 2
            throw error("invalid escape '\\\(Character(Unicode.Scalar(byte)))' in a string")
        }
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek() else { throw error("expected 4 hexadecimal digits after \\u") }
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("expected 4 hexadecimal digits after \\u")
            }
            value = value << 4 | digit
            offset += 1
        }
        return value
    }

    // MARK: Positions and messages

    private func peek() -> UInt8? {
        offset < bytes.count ? bytes[offset] : nil
    }

    private mutating func expect(_ byte: UInt8, what: String) throws(JSONSyntaxError) {
        guard peek() == byte else { throw error("expected \(what), found \(describeNext())") }
        offset += 1
    }

    private mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            default: return
            }
        }
    }

    /// "'x'", "end of input" or "byte 0xFF" for the byte at the current offset.
    private func describeNext() -> String {
        guard let byte = peek() else { return "end of input" }
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(hex(byte))"
    }

    private func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }

    func error(_ reason: String) -> JSONSyntaxError {
        let (line, column) = Self.lineAndColumn(of: offset, in: bytes)
        return JSONSyntaxError(line: line, column: column, reason: reason)
    }

    /// Line and column (from 1) of a byte offset; columns count characters, not bytes.
    static func lineAndColumn(of offset: Int, in bytes: UnsafeRawBufferPointer) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        let hasByteOrderMark = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
        for index in (hasByteOrderMark ? 3 : 0)..<max(min(offset, bytes.count), hasByteOrderMark ? 3 : 0) {
            let byte = bytes[index]
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }

    /// Counts newlines in `bytes[from..<to]`; lets the HAR reader track the line of each entry cheaply.
    func newlines(from start: Int, to end: Int) -> Int {
        var count = 0
        for index in start..<min(end, bytes.count) where bytes[index] == 0x0A {
            count += 1
        }
        return count
    }
}
