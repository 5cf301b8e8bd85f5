import Foundation
import NetTapCore
import Testing

@testable import NetTapStore

@Suite("JSONValue: the reader of the store's JSON columns")
struct JSONValueTests {
    @Test("reads escapes, surrogate pairs, nesting and exact numbers")
    func parses() throws {
        let value = try JSONValue.parse(
            #" { "a" : [1, -2.5e3, 9007199254740993, true, false, null], "s": "q\"b\\s\/n\n\u00e9\ud83d\ude42", "o": {} } "#)
        #expect(value["a"]?.arrayValue?.count == 6)
        #expect(value["a"]?.arrayValue?[1].doubleValue == -2500)
        #expect(value["a"]?.arrayValue?[2].int64Value == 9_007_199_254_740_993)
        #expect(value["a"]?.arrayValue?[3].boolValue == true)
        #expect(value["a"]?.arrayValue?[5] == .null)
        #expect(value["s"]?.stringValue == "q\"b\\s/n\né🙂")
        #expect(value["o"]?.objectValue?.isEmpty == true)
        #expect(value["missing"] == nil)
    }

    @Test(
        "refuses malformed text and says where",
        arguments: ["", "{", "[1,]", "{\"a\" 1}", "\"abc", "tru", "[1] x", "{\"a\":\"\\x\"}", "[-]", "\"\\ud800\\u0041\""])
    func refuses(text: String) {
        #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(text) }
    }

    @Test("a damaged JSON column or body is reported as corrupt, naming the row and column")
    func corruptColumns() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let exchange = ExchangeFixtures.simple(1, responseBody: Data(repeating: 65, count: 5000))
        let other = ExchangeFixtures.simple(2)
        try store.insert([exchange, other])
        try store.withDatabase { db in
            try db.execute("UPDATE exchanges SET request_headers = '[{\"name\": 1}]' WHERE id = ?", [.text(exchange.id.uuidString)])
        }
        let headerError = try #require(throws: ExchangeStoreError.self) { try store.exchange(id: exchange.id) }
        #expect(headerError.description.contains("column request_headers"))
        #expect(headerError.description.contains("[0].name is not a string"))
        try store.withDatabase { db in
            try db.execute("UPDATE exchanges SET request_headers = '[]' WHERE id = ?", [.text(exchange.id.uuidString)])
            try db.execute("UPDATE bodies SET data = x'00010203' WHERE encoding = 'zlib'")
        }
        let bodyError = try #require(throws: ExchangeStoreError.self) { try store.exchange(id: exchange.id) }
        #expect(bodyError.description.contains("response_body_id"))
        #expect(bodyError.description.contains("zlib"))
        // Other exchanges still read.
        #expect(try store.exchange(id: other.id) == other)
    }
}
