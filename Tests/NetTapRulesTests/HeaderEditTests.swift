import NetTapCore
import Testing
import NetTapRules

@Suite struct HeaderEditTests {
    @Test func addSetRemoveApplyInOrder() {
        var headers: HTTPHeaders = ["Accept": "*/*", "Cookie": "a=1", "X-Trace": "1"]
        let edits: [HeaderEdit] = [
            .add(name: "X-Trace", value: "2"), .set(name: "accept", value: "application/json"), .remove(name: "COOKIE"),
            .set(name: "X-New", value: "n"),
        ]
        edits.apply(to: &headers)
        #expect(headers.fields.map { "\($0.name): \($0.value)" } == [
            "Accept: application/json", "X-Trace: 1", "X-Trace: 2", "X-New: n",
        ])
    }

    @Test func loadedHeaderActionKeepsFileOrderPerSide() throws {
        let rules = try ruleSet(
            """
            {"version": 1, "rules": [{"name": "global", "match": {}, "actions": [{"headers": {
              "request": {"remove": ["Cookie"], "set": {"X-App-Version": "5.2"}, "add": {"X-Tag": ["a", "b"]}},
              "response": {"set": {"Cache-Control": "no-store"}}}}]}]}
            """)
        let decision = rules.evaluate(request("GET", "https://a.com/"))
        #expect(decision.requestHeaderEdits == [
            .remove(name: "Cookie"), .set(name: "X-App-Version", value: "5.2"), .add(name: "X-Tag", value: "a"),
            .add(name: "X-Tag", value: "b"),
        ])
        #expect(decision.responseHeaderEdits == [.set(name: "Cache-Control", value: "no-store")])
        #expect(decision.modifications == [
            ExchangeModification(
                rule: "global", action: "headers",
                detail: "request remove Cookie; request set X-App-Version: 5.2; request add X-Tag: a; request add X-Tag: b; response set Cache-Control: no-store")
        ])
    }
}
