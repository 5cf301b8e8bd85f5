import Foundation
import Testing
@testable import NetTapExport

/// NetTap's JSON parser: exact types, escapes, and syntax errors located by line and column.
@Suite struct JSONParserTests {
    static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try parse(bytes: Array(text.utf8))
    }

    static func parse(bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        let result = bytes.withUnsafeBytes { buffer -> Result<JSONValue, JSONSyntaxError> in
            do throws(JSONSyntaxError) {
                return .success(try JSONParser.parseDocument(buffer))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    @Test func valuesKeepTheirKinds() throws {
        let value = try Self.parse(#" {"a": [true, false, null, 0, -1.5e3, "x"], "b": {}} "#)
        #expect(value == .object([
            "a": .array([.bool(true), .bool(false), .null, .number(0), .number(-1500), .string("x")]),
            "b": .object([:]),
        ]))
    }

    @Test func escapesAndUnicode() throws {
        let value = try Self.parse(#""q\"b\\s\/n\nt\tu\u00e9\ud83d\ude80 é""#)
        #expect(value == .string("q\"b\\s/n\nt\tu\u{e9}\u{1F680} é"))
    }

    @Test func aByteOrderMarkIsSkipped() throws {
        var bytes: [UInt8] = [0xEF, 0xBB, 0xBF]
        bytes += Array(#"{"k":1}"#.utf8)
        let value = try Self.parse(bytes: bytes)
        #expect(value == .object(["k": .number(1)]))
    }

    @Test(arguments: [
        ("{\"a\":1,}", 1, 8, "expected a string key in double quotes, found '}'"),
        ("[1 2]", 1, 4, "expected ',' or ']' after an array element, found '2'"),
        ("{\n  \"a\": tru\n}", 2, 8, "expected a value, found 't'"),
        ("\"é\u{1}\"", 1, 3, "control character U+01 must be escaped in a string"),
        ("[01]", 1, 3, "a number must not start with a leading zero"),
        ("[1.]", 1, 4, "expected a digit after the decimal point"),
        ("\"\\ud800x\"", 1, 8, "unpaired surrogate \\ud800 in a string"),
        ("{\"a\":1} {", 1, 9, "unexpected '{' after the end of the JSON value"),
        ("", 1, 1, "unexpected end of input, expected a value"),
        ("\"abc", 1, 1, "string is not terminated"),
        ("[1e999]", 1, 2, "number 1e999 is out of range"),
    ] as [(String, Int, Int, String)])
    func syntaxErrorsAreLocated(text: String, line: Int, column: Int, reason: String) {
        do {
            let value = try Self.parse(text)
            Issue.record("parsed \(text.debugDescription) as \(value)")
        } catch {
            #expect(error == JSONSyntaxError(line: line, column: column, reason: reason), "\(text.debugDescription)")
        }
    }

    @Test func invalidUTF8InAStringIsAnError() {
        let bytes: [UInt8] = Array("[\"ab".utf8) + [0xFF] + Array("\"]".utf8)
        do {
            let value = try Self.parse(bytes: bytes)
            Issue.record("parsed invalid UTF-8 as \(value)")
        } catch {
            #expect(error == JSONSyntaxError(line: 1, column: 2, reason: "string is not valid UTF-8"))
        }
    }
}
