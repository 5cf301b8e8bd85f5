import Foundation
import Testing
import NetTapRules

@Suite struct ActiveRulesTests {
    @Test func replaceSwapsTheWholeSet() throws {
        let active = ActiveRules()
        let live = request("GET", "https://a.com/")
        #expect(active.evaluate(live).isEmpty)
        active.replace(with: try ruleSet(#"{"version": 1, "rules": [{"match": {}, "actions": [{"block": {"status": 403}}]}]}"#))
        #expect(active.evaluate(live).terminal == .block(.status(403)))
        #expect(active.current.rules.count == 1)
        active.replace(with: .empty)
        #expect(active.evaluate(live).isEmpty)
    }

    @Test func ordinalsCountRequestsAndRestartOnReplace() throws {
        let rules = try ruleSet(
            #"{"version": 1, "seed": 11, "rules": [{"match": {}, "actions": [{"throttle": {"failureProbability": 0.5}}]}]}"#)
        let active = ActiveRules(rules)
        let live = request("GET", "https://a.com/")
        let first = (0..<40).map { _ in active.evaluate(live).throttleFailure != nil }
        let expected = (0..<40).map { rules.evaluate(live, ordinal: UInt64($0)).throttleFailure != nil }
        #expect(first == expected)
        active.replace(with: rules)
        let again = (0..<40).map { _ in active.evaluate(live).throttleFailure != nil }
        #expect(again == expected)
    }

    @Test func concurrentReadersSeeAWholeSetWhileItIsSwapped() async throws {
        let blocking = try ruleSet(#"{"version": 1, "rules": [{"match": {}, "actions": [{"block": {"status": 403}}]}, {"match": {}, "actions": [{"block": {"status": 500}}]}]}"#)
        let active = ActiveRules(blocking)
        let live = request("GET", "https://a.com/")
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for index in 0..<2_000 { active.replace(with: index.isMultiple(of: 2) ? .empty : blocking) }
                return true
            }
            for _ in 0..<4 {
                group.addTask {
                    (0..<2_000).allSatisfy { _ in
                        let decision = active.evaluate(live)
                        return decision.isEmpty || decision.terminal == .block(.status(403))
                    }
                }
            }
            for await consistent in group { #expect(consistent) }
        }
    }
}
