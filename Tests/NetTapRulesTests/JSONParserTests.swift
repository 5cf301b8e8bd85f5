import Foundation
import Testing
@testable import NetTapRules

@Suite struct JSONParserTests {
    private func parse(_ text: String) throws -> JSONNode {
        try JSONParser.parse(Array(text.utf8))
    }

    private func syntaxError(_ text: String) -> JSONParser.SyntaxError? {
        syntaxError(bytes: Array(text.utf8))
    }

    private func syntaxError(bytes: [UInt8]) -> JSONParser.SyntaxError? {
        do {
            _ = try JSONParser.parse(bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test func recordsLineAndColumnOfEveryValue() throws {
        let root = try parse("{\n  \"a\": [1, true],\n\t\"b\": {\"c\": null}\n}")
        #expect(root.position == SourcePosition(line: 1, column: 1))
        let a = try #require(root.member("a"))
        #expect(a.keyPosition == SourcePosition(line: 2, column: 3))
        #expect(a.value.position == SourcePosition(line: 2, column: 8))
        guard case .array(let elements) = a.value.value else {
            Issue.record("a is not an array")
            return
        }
        #expect(elements.map(\.position) == [SourcePosition(line: 2, column: 9), SourcePosition(line: 2, column: 12)])
        let c = try #require(root.member("b")?.value.member("c"))
        #expect(c.value.position == SourcePosition(line: 3, column: 13))
    }

    @Test func columnsCountUnicodeScalarsNotBytes() throws {
        // "é" is two bytes in UTF-8 and "😀" four; each is one column.
        let root = try parse("{\"é😀\": 1, \"x\": 2}")
        #expect(root.member("x")?.keyPosition == SourcePosition(line: 1, column: 11))
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let root = try parse(#"["a\"b\\c\/d\n\t\u00e9\ud83d\ude00"]"#)
        guard case .array(let elements) = root.value, case .string(let text) = elements.first?.value else {
            Issue.record("not an array of one string")
            return
        }
        #expect(text == "a\"b\\c/d\n\té😀")
    }

    @Test func keepsNumbersAsWrittenAndMembersInOrder() throws {
        let root = try parse(#"{"z": -0.50, "a": 1e3, "m": 12345678901234567890}"#)
        guard case .object(let members) = root.value else {
            Issue.record("not an object")
            return
        }
        #expect(members.map(\.key) == ["z", "a", "m"])
        #expect(members.map(\.value.value) == [.number("-0.50"), .number("1e3"), .number("12345678901234567890")])
        #expect(JSONWriter.serialize(root) == #"{"z":-0.50,"a":1e3,"m":12345678901234567890}"#)
    }

    @Test func skipsAByteOrderMark() throws {
        let node = try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8))
        #expect(node.position == SourcePosition(line: 1, column: 1))
    }

    @Test(arguments: [
        ("", "1:1", "the document is empty"),
        ("{\"a\": 1,}", "1:9", "trailing comma before '}'"),
        ("[1, 2,]", "1:7", "trailing comma before ']'"),
        ("{\"a\": 1, \"a\": 2}", "1:10", "duplicate key \"a\" (first at 1:2)"),
        ("{\"a\" 1}", "1:6", "expected ':' after the key \"a\""),
        ("{\"a\": 1 \"b\": 2}", "1:9", "expected ',' or '}' after the value of \"a\", found '\"'"),
        ("[1 2]", "1:4", "expected ',' or ']' after an array element, found '2'"),
        ("{a: 1}", "1:2", "expected a key in double quotes, found 'a'"),
        ("['a']", "1:2", "strings must use double quotes"),
        ("[1] // note", "1:5", "unexpected text after the JSON value"),
        ("/* c */ []", "1:1", "comments are not allowed in JSON"),
        ("[01]", "1:2", "numbers must not have leading zeros"),
        ("[1.]", "1:4", "a number needs digits after '.'"),
        ("[1e]", "1:4", "a number needs digits in its exponent"),
        ("[-]", "1:3", "a number needs digits after '-'"),
        ("[nul]", "1:2", "invalid literal nul; expected true, false or null"),
        ("[\"a\\x\"]", "1:5", "invalid escape \\x in a string"),
        ("[\"\\u12G4\"]", "1:7", "a \\u escape needs four hexadecimal digits"),
        ("[\"\\ud83d\"]", "1:9", "a \\uD83D high surrogate must be followed by a low surrogate"),
        ("[\"\\ude00\"]", "1:9", "a lone low surrogate \\uDE00"),
        ("[\"a\nb\"]", "1:4", "unescaped control character U+000A in a string"),
        ("[\"abc", "1:2", "unterminated string"),
        ("{\"a\": [1, {\"b\": ", "1:17", "unexpected end of file, expected a value"),
        ("[1,\n  @]", "2:3", "unexpected '@', expected a value"),
    ])
    func rejectsSyntaxErrorsWithPositions(text: String, position: String, message: String) {
        let error = syntaxError(text)
        #expect(error.map { "\($0.position)" } == position)
        #expect(error?.message == message)
    }

    @Test func syntaxErrorsKnowThePathOfTheValueBeingRead() {
        let error = syntaxError("{\"rules\": [{}, {\"match\": {\"host\": tru}}]}")
        #expect(error?.path == [.key("rules"), .index(1), .key("match"), .key("host")])
        #expect(error.map { JSONPathComponent.render($0.path) } == "rules[1].match.host")
    }

    @Test func rejectsInvalidUTF8InStrings() {
        let error = syntaxError(bytes: Array("[\"a".utf8) + [0xFF] + Array("\"]".utf8))
        #expect(error?.message == "the string is not valid UTF-8")
        #expect(error?.position == SourcePosition(line: 1, column: 2))
    }

    @Test func rejectsNestingDeeperThanTheLimit() {
        let deep = String(repeating: "[", count: JSONParser.maximumDepth + 1) + String(repeating: "]", count: JSONParser.maximumDepth + 1)
        #expect(syntaxError(deep)?.message == "nesting deeper than \(JSONParser.maximumDepth) levels")
        let allowed = String(repeating: "[", count: JSONParser.maximumDepth) + String(repeating: "]", count: JSONParser.maximumDepth)
        #expect(syntaxError(allowed) == nil)
    }

    @Test func writerEscapesWhatJSONRequires() {
        var output = ""
        JSONWriter.writeString("q\"b\\n\nt\tc\u{01}é", into: &output)
        #expect(output == #""q\"b\\n\nt\tc\u0001é""#)
        // And the parser reads back what the writer wrote.
        let node = try? JSONParser.parse(Array(output.utf8))
        #expect(node?.value == .string("q\"b\\n\nt\tc\u{01}é"))
    }
}
