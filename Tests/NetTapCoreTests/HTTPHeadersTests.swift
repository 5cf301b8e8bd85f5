import Foundation
import Testing
@testable import NetTapCore

@Suite struct HTTPHeadersTests {
    @Test func lookupIgnoresCaseAndKeepsSpelling() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain"]
        headers.add(name: "set-cookie", value: "a=1")
        headers.add(name: "Set-Cookie", value: "b=2")
        #expect(headers["CONTENT-type"] == "text/plain")
        #expect(headers.values(for: "SET-COOKIE") == ["a=1", "b=2"])
        #expect(headers.map(\.name) == ["Content-Type", "set-cookie", "Set-Cookie"])
    }

    /// Fields from a dictionary are in the order of their lowercased names, which the byte
    /// comparison for ASCII names must reproduce exactly; names that are not ASCII take the String
    /// comparison (a combining accent after "e" sorts it after "f", not before).
    @Test func fieldsFromADictionarySortAsTheirLowercasedNames() {
        let ascii = [
            "Content-Type", "content-length", "ETag", "Etag-Extra", "Date", "X-B", "x-a", "X", "x-", "Server",
            "Accept-Ranges", "Last-Modified", "Connection", "A", "a0", "Z", "_priv", "~tilde", "0", "Content-Type-2",
        ]
        let mixed = ascii + ["e\u{301}tag", "F", "Ünicode", "unicode", "É", "ǅ-title"]
        for names in [ascii, mixed, [], ["One"]] {
            let dictionary = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($0.element, "\($0.offset)") })
            let sorted = HTTPHeaders(dictionary).map(\.name)
            #expect(sorted.map { $0.lowercased() } == names.map { $0.lowercased() }.sorted(), "\(sorted)")
            #expect(HTTPHeaders(dictionary).map(\.value) == sorted.map { dictionary[$0] ?? "" })
        }
        let accented = HTTPHeaders(["e\u{301}tag": "1", "F": "2", "etag": "3"]).map(\.name)
        #expect(accented == ["etag", "F", "e\u{301}tag"])
    }

    @Test func sortingKeepsTheOrderOfFieldsWithTheSameName() {
        let fields = [("Set-Cookie", "1"), ("b", "2"), ("set-cookie", "3"), ("A", "4"), ("SET-COOKIE", "5"), ("B", "6")]
            .map { HTTPHeaderField(name: $0.0, value: $0.1) }
        let sorted = HTTPHeaders(sortingByName: fields)
        #expect(sorted.map(\.value) == ["4", "2", "6", "1", "3", "5"])
        // The caller's array is its own: sorting a copy of it leaves it as it was.
        #expect(fields.map(\.value) == ["1", "2", "3", "4", "5", "6"])
        // More fields than fit a small scratch area on the stack.
        let many = (0..<300).reversed().map { HTTPHeaderField(name: "X-Field-\(String(format: "%03d", $0))", value: "\($0)") }
        #expect(HTTPHeaders(sortingByName: many).map(\.value) == (0..<300).map { "\($0)" })
    }

    @Test(arguments: [
        ("application/JSON; charset=utf-8", "json", true), ("text/plain", "json", false), ("", "json", false),
        ("JSO", "json", false), ("x", "", true), ("Application/X-WWW-Form-Urlencoded", "x-www-form-urlencoded", true),
        ("ﬁ json", "json", true), ("jsoN", "json", true),
    ])
    func asciiSearchIgnoresASCIICase(text: String, needle: String, found: Bool) {
        #expect(text.containsASCIICaseInsensitive(needle) == found)
        // A substring's UTF-8 is a slice of its base string's, read in place too.
        let padded = "<" + text + ">"
        #expect(padded.dropFirst().dropLast().containsASCIICaseInsensitive(needle) == found)
    }

    @Test func setReplacesAllFieldsInPlaceOfTheFirst() {
        var headers = HTTPHeaders([
            HTTPHeaderField(name: "A", value: "1"), HTTPHeaderField(name: "B", value: "2"),
            HTTPHeaderField(name: "a", value: "3"),
        ])
        headers.set(name: "A", value: "x")
        #expect(headers.fields == [HTTPHeaderField(name: "A", value: "x"), HTTPHeaderField(name: "B", value: "2")])
        headers.remove(name: "b")
        #expect(headers.count == 1)
        headers.set(name: "C", value: "new")
        #expect(headers.map(\.name) == ["A", "C"])
    }

    @Test func dictionaryJoinsRepeatedFields() {
        var headers = HTTPHeaders()
        headers.add(name: "Accept", value: "a")
        headers.add(name: "accept", value: "b")
        #expect(headers.dictionary == ["Accept": "a, b"])
    }

    @Test func encodesAsOrderedNameValueArray() throws {
        let headers: HTTPHeaders = ["X-B": "2", "X-A": "1"]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys  // key order within an object is otherwise unspecified
        let json = String(decoding: try encoder.encode(headers), as: UTF8.self)
        #expect(json == #"[{"name":"X-B","value":"2"},{"name":"X-A","value":"1"}]"#)
        #expect(try JSONDecoder().decode(HTTPHeaders.self, from: Data(json.utf8)) == headers)
    }
}

@Suite struct BodyTests {
    @Test func accumulatorKeepsAtMostTheCapAndCountsEverything() {
        var accumulator = BodyAccumulator(cap: 10)
        accumulator.append(Data(repeating: 1, count: 6))
        accumulator.append(Data(repeating: 2, count: 6))
        accumulator.append(Data(repeating: 3, count: 100))
        let body = accumulator.body(contentType: "application/octet-stream")
        #expect(body.data == Data(repeating: 1, count: 6) + Data(repeating: 2, count: 4))
        #expect(body.size == 112)
        #expect(body.isTruncated)
    }

    @Test func bodyUnderTheCapIsComplete() {
        let body = CapturedBody.capturing(Data("hello".utf8), cap: 5, contentType: nil)
        #expect(!body.isTruncated)
        #expect(body.size == 5)
        let cut = CapturedBody.capturing(Data("hello!".utf8), cap: 5, contentType: nil)
        #expect(cut.isTruncated && cut.data == Data("hello".utf8) && cut.size == 6)
    }

    @Test func binaryBodiesRoundTripAsBase64() throws {
        let body = CapturedBody(data: Data([0xFF, 0x00, 0xFE]), contentType: "image/png")
        let json = try JSONEncoder().encode(body)
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains(#""encoding":"base64""#))
        #expect(try JSONDecoder().decode(CapturedBody.self, from: json) == body)
    }

    @Test func unknownEncodingIsRejectedByName() {
        let json = Data(#"{"encoding":"rot13","data":"x"}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(CapturedBody.self, from: json) }
    }
}
