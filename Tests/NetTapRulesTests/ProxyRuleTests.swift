import Foundation
import Testing
import NetTapRules

@Suite struct ProxyRuleTests {
    private let file = """
        {"version": 1, "rules": [
          {"name": "corp", "match": {"host": "*.corp.example"},
           "actions": [{"proxy": {"host": "proxy.corp.example", "port": 3128, "type": "https"}}]}
        ]}
        """

    @Test func rejectedWhereThePlatformCannotRouteThroughAProxy() {
        do {
            _ = try RuleSet(
                jsonData: Data(file.utf8), baseDirectory: URL(fileURLWithPath: "/"), fileName: "rules.json",
                options: RuleLoadOptions(platformSupportsProxyRules: false))
            Issue.record("accepted")
        } catch {
            #expect(
                error.description
                    == "rules.json:3:26: rule #0 \"corp\": actions[0].proxy: proxy rules are not supported on Linux: "
                    + "swift-corelibs-foundation ignores connectionProxyDictionary; set http_proxy/https_proxy for the whole process instead")
        }
    }

    @Test func acceptedWhereThePlatformSupportsIt() throws {
        let rules = try RuleSet(
            jsonData: Data(file.utf8), baseDirectory: URL(fileURLWithPath: "/"),
            options: RuleLoadOptions(platformSupportsProxyRules: true))
        let decision = rules.evaluate(request("GET", "https://git.corp.example/"))
        #expect(decision.proxy == ProxyTarget(host: "proxy.corp.example", port: 3128, kind: .https))
        #expect(decision.modifications.map(\.detail) == ["through https proxy proxy.corp.example:3128"])
    }

    @Test func defaultFollowsThePlatform() {
        #if canImport(Darwin)
        #expect(RulesPlatform.supportsProxyRules)
        #else
        #expect(!RulesPlatform.supportsProxyRules)
        #expect(throws: RuleFileError.self) {
            try RuleSet(jsonData: Data(file.utf8), baseDirectory: URL(fileURLWithPath: "/"))
        }
        #endif
    }
}
