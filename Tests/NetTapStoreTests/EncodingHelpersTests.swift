import Foundation
import NetTapCore
import Testing

@testable import NetTapStore

@Suite("Encoding helpers: URL parts, JSON writer, pending buffer")
struct EncodingHelpersTests {
    @Test(
        "host and path split like URLComponents for ordinary URLs, and survive odd ones",
        arguments: [
            ("https://API.Example.com/v1/users?x=1#f", "api.example.com", "/v1/users"),
            ("http://user:pw@host.test:8080/a%20b/c", "host.test", "/a%20b/c"),
            ("http://[::1]:8080", "::1", "/"),
            ("https://example.com?q=/x", "example.com", "/"),
            ("not a url", nil, "not a url"),
            ("/relative/path?x", nil, "/relative/path"),
            ("", nil, "/"),
            ("file:///tmp/x", nil, "/tmp/x"),
        ])
    func urlParts(url: String, host: String?, path: String) {
        let parts = URLParts(url)
        #expect(parts.host == host)
        #expect(parts.path == path)
        if let components = URLComponents(string: url), components.host?.isEmpty == false, !url.contains("[") {
            #expect(parts.host == components.host?.lowercased())
            #expect(parts.path == (components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath))
        }
    }

    @Test("the JSON writer's output reads back with JSONDecoder: awkward strings, exact doubles, nesting")
    func jsonWriter() throws {
        struct Sample: Decodable {
            var text: String
            var doubles: [Double]
            var int: Int64
            var flag: Bool
            var nested: [String: [String: String]]
        }
        let awkward = "quote \" backslash \\ newline \n tab \t nul \u{0} bell \u{7} emoji 🙂 é"
        let doubles = [0.1 + 0.2, Double.leastNonzeroMagnitude, -1.5, 1e300, 813_836_800.123_456_7, 0]
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("text", awkward)
        writer.key("doubles")
        writer.beginArray()
        for double in doubles { writer.number(double) }
        writer.endArray()
        writer.field("int", Int64.min)
        writer.field("flag", false)
        writer.key("nested")
        writer.beginObject()
        writer.key("empty")
        writer.beginObject()
        writer.endObject()
        writer.key("one")
        writer.beginObject()
        writer.field("k", "v")
        writer.endObject()
        writer.endObject()
        writer.endObject()
        let sample = try JSONDecoder().decode(Sample.self, from: Data(writer.text.utf8))
        #expect(sample.text == awkward)
        #expect(sample.doubles == doubles)
        #expect(sample.int == Int64.min)
        #expect(sample.flag == false)
        #expect(sample.nested == ["empty": [:], "one": ["k": "v"]])
    }

    @Test("headers written by hand decode with the model's own Codable")
    func headersColumn() throws {
        var headers = HTTPHeaders()
        headers.add(name: "X-A", value: "1 \"2\"")
        headers.add(name: "x-a", value: "\u{1}")
        let decoded = try JSONDecoder().decode([HTTPHeaderField].self, from: Data(ExchangeRecord.json(headers).utf8))
        #expect(HTTPHeaders(decoded) == headers)
        #expect(ExchangeRecord.json(HTTPHeaders()) == "[]")
        let one: HTTPHeaders = ["Accept": "*/*"]
        #expect(ExchangeRecord.json(one) == #"[{"name":"Accept","value":"*/*"}]"#)
    }

    @Test("the id text the store writes is exactly Foundation's uuidString")
    func storedIDText() throws {
        var ids = [UUID(), UUID.timeOrdered()]
        ids.append(try #require(UUID(uuidString: "00000000-0000-0000-0000-000000000000")))
        ids.append(try #require(UUID(uuidString: "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF")))
        ids.append(try #require(UUID(uuidString: "0123abcd-4567-89ef-0a1b-2c3d4e5f6a7b")))
        ids += (0 ..< 500).map { _ in UUID() }
        for id in ids {
            #expect(id.storedText == id.uuidString)
        }
    }
}
