import Testing
import NetTapRules

@Suite struct BlockActionTests {
    private func block(_ json: String) throws -> BlockAction? {
        let rules = try ruleSet(#"{"version": 1, "rules": [{"match": {}, "actions": [{"block": "# + json + "}]}]}")
        guard case .block(let action) = rules.evaluate(request("GET", "https://ads.example/")).terminal else { return nil }
        return action
    }

    @Test(arguments: [
        ("notConnectedToInternet", -1009), ("timedOut", -1001), ("cannotFindHost", -1003),
        ("networkConnectionLost", -1005), ("secureConnectionFailed", -1200), ("cancelled", -999),
    ])
    func errorByName(name: String, code: Int) throws {
        let action = try block(#"{"error": ""# + name + #""}"#)
        #expect(action == .fail(URLErrorCode(code: code)))
        #expect(action?.response == nil)
        #expect(URLErrorCode(code: code).name == name)
    }

    @Test func errorByNumberKeepsUnknownCodes() throws {
        #expect(try block(#"{"error": -1003}"#) == .fail(URLErrorCode(code: -1003)))
        let unknown = try block(#"{"error": -4242}"#)
        #expect(unknown == .fail(URLErrorCode(code: -4242)))
        #expect(URLErrorCode(code: -4242).name == nil)
        #expect(URLErrorCode(code: -4242).description == "-4242")
    }

    @Test func statusAnswersWithAnEmptyBody() throws {
        let action = try block(#"{"status": 451}"#)
        #expect(action == .status(451))
        #expect(action?.response?.statusCode == 451)
        #expect(action?.response?.body.isEmpty == true)
    }

    @Test func namesAreExact() {
        #expect(URLErrorCode(name: "TimedOut") == nil)
        #expect(URLErrorCode(name: "timedOut")?.code == -1001)
    }
}
