import Foundation
import NetTapCore
import Testing
import NetTapRules

@Suite struct MockActionTests {
    private func mock(_ action: String, directory: URL = URL(fileURLWithPath: "/tmp")) throws -> RuleResponse {
        let rules = try ruleSet(
            #"{"version": 1, "rules": [{"match": {}, "actions": [{"mock": "# + action + "}]}]}", directory: directory)
        guard case .mock(let response) = rules.evaluate(request("GET", "https://a.com/")).terminal else {
            throw MockMissing()
        }
        return response
    }

    private struct MockMissing: Error {}

    @Test func textBody() throws {
        let response = try mock(#"{"status": 503, "text": "down for maintenance\n"}"#)
        #expect(response.statusCode == 503)
        #expect(response.body == Data("down for maintenance\n".utf8))
        #expect(response.headers["Content-Type"] == "text/plain; charset=utf-8")
        #expect(response.delay == 0)
    }

    @Test func jsonBodyIsAnyJSONValueSerialized() throws {
        let object = try mock(#"{"json": {"b": [1, 2.50, true, null], "a": "x\"y", "c": {}}}"#)
        #expect(String(decoding: object.body, as: UTF8.self) == #"{"b":[1,2.50,true,null],"a":"x\"y","c":{}}"#)
        #expect(object.headers["Content-Type"] == "application/json")
        let array = try mock(#"{"json": [1, "two"]}"#)
        #expect(String(decoding: array.body, as: UTF8.self) == #"[1,"two"]"#)
        let scalar = try mock(#"{"json": false}"#)
        #expect(String(decoding: scalar.body, as: UTF8.self) == "false")
        // The body reads back as the same JSON value through Foundation too.
        let parsed = try JSONSerialization.jsonObject(with: object.body) as? [String: Any]
        #expect(parsed?["a"] as? String == "x\"y")
    }

    @Test func base64Body() throws {
        let response = try mock(#"{"base64": "AAEC/w==", "headers": {"Content-Type": "image/x-test"}}"#)
        #expect(response.body == Data([0, 1, 2, 255]))
        #expect(response.headers.values(for: "content-type") == ["image/x-test"])
    }

    @Test func fileBodyIsReadAtLoadRelativeToTheRulesFile() throws {
        let directory = try TemporaryDirectory()
        try directory.write("fixtures/users.json", #"{"users": ["ann"]}"#)
        let response = try mock(#"{"file": "fixtures/users.json", "delay": 0.25}"#, directory: directory.url)
        #expect(response.body == Data(#"{"users": ["ann"]}"#.utf8))
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.delay == 0.25)
    }

    @Test func headersKeepOrderAndRepeats() throws {
        let response = try mock(#"{"status": 302, "headers": {"Location": "/new", "Set-Cookie": ["a=1", "b=2"]}}"#)
        #expect(response.statusCode == 302)
        #expect(response.headers.fields.map(\.name) == ["Location", "Set-Cookie", "Set-Cookie"])
        #expect(response.headers.values(for: "set-cookie") == ["a=1", "b=2"])
        #expect(response.body.isEmpty)
    }

    @Test func emptyMockDefaultsTo200() throws {
        let response = try mock("{}")
        #expect(response == RuleResponse(statusCode: 200))
    }
}
