import Foundation

/// A strict JSON parser (RFC 8259) that records the line and column of every value.
///
/// Stricter than `JSONSerialization` where a hand-written rules file needs it: duplicate keys,
/// trailing commas, comments and leading zeros are errors, each reported with its position and
/// the path of the value being read (`rules[2].match`), so the message can name the rule.
struct JSONParser {
    /// A syntax error: where it is, inside which value, and what is wrong.
    struct SyntaxError: Error, Sendable, Hashable {
        var position: SourcePosition
        var path: [JSONPathComponent]
        var message: String
    }

    /// Containers nested deeper than this are rejected rather than risking the stack.
    static let maximumDepth = 200

    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var column = 1
    private var path: [JSONPathComponent] = []

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses one JSON document; a UTF-8 byte order mark at the start is skipped.
    static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> JSONNode {
        var parser = JSONParser(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        parser.skipWhitespace()
        guard parser.index < bytes.count else { throw parser.error("the document is empty") }
        let node = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        if parser.index < bytes.count {
            throw parser.error("unexpected text after the JSON value")
        }
        return node
    }

    // MARK: Values

    private mutating func parseValue(depth: Int) throws(SyntaxError) -> JSONNode {
        guard index < bytes.count else { throw error("unexpected end of file, expected a value") }
        let start = position
        switch bytes[index] {
        case UInt8(ascii: "{"):
            return JSONNode(value: try parseObject(depth: depth + 1), position: start)
        case UInt8(ascii: "["):
            return JSONNode(value: try parseArray(depth: depth + 1), position: start)
        case UInt8(ascii: "\""):
            return JSONNode(value: .string(try parseString()), position: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONNode(value: .number(try parseNumber()), position: start)
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return JSONNode(value: .bool(true), position: start)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return JSONNode(value: .bool(false), position: start)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return JSONNode(value: .null, position: start)
        case UInt8(ascii: "/"):
            throw error("comments are not allowed in JSON")
        case UInt8(ascii: "'"):
            throw error("strings must use double quotes")
        default:
            throw error("unexpected \(describeCurrent()), expected a value")
        }
    }

    private mutating func parseObject(depth: Int) throws(SyntaxError) -> JSONNode.Value {
        guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
        advance()  // {
        var members: [JSONMember] = []
        var seen: [String: SourcePosition] = [:]
        skipWhitespace()
        if peek(UInt8(ascii: "}")) {
            advance()
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of file inside an object") }
            if bytes[index] == UInt8(ascii: "}") {
                throw error("trailing comma before '}'")
            }
            guard bytes[index] == UInt8(ascii: "\"") else {
                if bytes[index] == UInt8(ascii: "/") { throw error("comments are not allowed in JSON") }
                if bytes[index] == UInt8(ascii: "'") { throw error("strings must use double quotes") }
                throw error("expected a key in double quotes, found \(describeCurrent())")
            }
            let keyPosition = position
            let key = try parseString()
            if let first = seen[key] {
                path.append(.key(key))
                throw SyntaxError(position: keyPosition, path: path, message: "duplicate key \"\(key)\" (first at \(first))")
            }
            seen[key] = keyPosition
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else {
                path.append(.key(key))
                throw error("expected ':' after the key \"\(key)\"")
            }
            advance()
            skipWhitespace()
            path.append(.key(key))
            let value = try parseValue(depth: depth)
            path.removeLast()
            members.append(JSONMember(key: key, keyPosition: keyPosition, value: value))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of file inside an object") }
            if bytes[index] == UInt8(ascii: ",") {
                advance()
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                advance()
                return .object(members)
            }
            throw error("expected ',' or '}' after the value of \"\(key)\", found \(describeCurrent())")
        }
    }

    private mutating func parseArray(depth: Int) throws(SyntaxError) -> JSONNode.Value {
        guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
        advance()  // [
        var elements: [JSONNode] = []
        skipWhitespace()
        if peek(UInt8(ascii: "]")) {
            advance()
            return .array(elements)
        }
        while true {
            skipWhitespace()
            if peek(UInt8(ascii: "]")) { throw error("trailing comma before ']'") }
            path.append(.index(elements.count))
            elements.append(try parseValue(depth: depth))
            path.removeLast()
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of file inside an array") }
            if bytes[index] == UInt8(ascii: ",") {
                advance()
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                advance()
                return .array(elements)
            }
            throw error("expected ',' or ']' after an array element, found \(describeCurrent())")
        }
    }

    private mutating func parseString() throws(SyntaxError) -> String {
        let start = position
        advance()  // "
        var scalars: [UInt8] = []
        while true {
            guard index < bytes.count else {
                throw SyntaxError(position: start, path: path, message: "unterminated string")
            }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                advance()
                guard let text = String(bytes: scalars, encoding: .utf8) else {
                    throw SyntaxError(position: start, path: path, message: "the string is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                advance()
                try parseEscape(into: &scalars)
            case 0x00..<0x20:
                throw error("unescaped control character U+\(hex4(UInt16(byte))) in a string")
            default:
                scalars.append(byte)
                advance()
            }
        }
    }

    private mutating func parseEscape(into output: inout [UInt8]) throws(SyntaxError) {
        guard index < bytes.count else { throw error("unexpected end of file in an escape") }
        let byte = bytes[index]
        let simple: UInt8?
        switch byte {
        case UInt8(ascii: "\""): simple = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): simple = UInt8(ascii: "\\")
        case UInt8(ascii: "/"): simple = UInt8(ascii: "/")
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"): simple = nil
        default:
            throw error("invalid escape \\\(describeByte(byte)) in a string")
        }
        if let simple {
            output.append(simple)
            advance()
            return
        }
        advance()  // u
        let first = try parseHex4()
        var scalarValue = UInt32(first)
        if (0xD800..<0xDC00).contains(first) {
            guard peek(UInt8(ascii: "\\")), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                throw error("a \\u\(hex4(first)) high surrogate must be followed by a low surrogate")
            }
            advance()
            advance()
            let second = try parseHex4()
            guard (0xDC00..<0xE000).contains(second) else {
                throw error("a \\u\(hex4(first)) high surrogate must be followed by a low surrogate")
            }
            scalarValue = 0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00)
        } else if (0xDC00..<0xE000).contains(first) {
            throw error("a lone low surrogate \\u\(hex4(first))")
        }
        guard let scalar = Unicode.Scalar(scalarValue) else { throw error("invalid \\u escape") }
        output.append(contentsOf: Array(String(Character(scalar)).utf8))
    }

    private mutating func parseHex4() throws(SyntaxError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw error("unexpected end of file in a \\u escape") }
            let byte = bytes[index]
            let digit: UInt16
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt16(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt16(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt16(byte - UInt8(ascii: "A") + 10)
            default: throw error("a \\u escape needs four hexadecimal digits")
            }
            value = value << 4 | digit
            advance()
        }
        return value
    }

    private mutating func parseNumber() throws(SyntaxError) -> String {
        let startIndex = index
        if peek(UInt8(ascii: "-")) { advance() }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("a number needs digits after '-'") }
        if bytes[index] == UInt8(ascii: "0"), index + 1 < bytes.count, isDigit(bytes[index + 1]) {
            throw error("numbers must not have leading zeros")
        }
        while index < bytes.count, isDigit(bytes[index]) { advance() }
        if peek(UInt8(ascii: ".")) {
            advance()
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("a number needs digits after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { advance() }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            advance()
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { advance() }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("a number needs digits in its exponent") }
            while index < bytes.count, isDigit(bytes[index]) { advance() }
        }
        return String(decoding: bytes[startIndex..<index], as: UTF8.self)
    }

    private mutating func expectLiteral(_ literal: String) throws(SyntaxError) {
        let expected = Array(literal.utf8)
        let start = position
        var end = index
        while end < bytes.count, isLetter(bytes[end]) { end += 1 }
        guard bytes[index..<end].elementsEqual(expected) else {
            let word = String(decoding: bytes[index..<end], as: UTF8.self)
            throw SyntaxError(position: start, path: path, message: "invalid literal \(word); expected true, false or null")
        }
        while index < end { advance() }
    }

    // MARK: Scanning

    private var position: SourcePosition { SourcePosition(line: line, column: column) }

    private func peek(_ byte: UInt8) -> Bool {
        index < bytes.count && bytes[index] == byte
    }

    /// Moves one byte on, counting lines and Unicode scalars (continuation bytes are not columns).
    private mutating func advance() {
        let byte = bytes[index]
        index += 1
        if byte == 0x0A {
            line += 1
            column = 1
        } else if byte & 0xC0 != 0x80 {
            column += 1
        }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0D:
                advance()
            case 0x0A:
                advance()
            default:
                return
            }
        }
    }

    private func error(_ message: String) -> SyntaxError {
        SyntaxError(position: position, path: path, message: message)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    private func describeCurrent() -> String {
        index < bytes.count ? "'\(describeByte(bytes[index]))'" : "end of file"
    }

    private func describeByte(_ byte: UInt8) -> String {
        if byte >= 0x20 && byte < 0x7F { return String(UnicodeScalar(byte)) }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    private func hex4(_ value: UInt16) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

/// One step of the path to a value: an object key or an array index.
enum JSONPathComponent: Sendable, Hashable {
    case key(String)
    case index(Int)

    /// Renders a path as `rules[2].match.host`.
    static func render<C: Collection>(_ components: C) -> String where C.Element == JSONPathComponent {
        var text = ""
        for component in components {
            switch component {
            case .key(let key):
                if !text.isEmpty { text += "." }
                text += key
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text
    }
}
