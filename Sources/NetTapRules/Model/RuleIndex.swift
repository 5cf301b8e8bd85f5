/// Which rules can possibly match a host, so that evaluation skips rules for other hosts without
/// looking at them: rules with host conditions are filed under each exact host and each wildcard
/// domain; rules without one are always candidates.
struct RuleIndex: Sendable {
    private let unconstrained: [Int]
    private let exact: [String: [Int]]
    private let wildcard: [String: [Int]]

    init(rules: [Rule]) {
        var unconstrained: [Int] = []
        var exact: [String: [Int]] = [:]
        var wildcard: [String: [Int]] = [:]
        for (index, rule) in rules.enumerated() where rule.isEnabled {
            if rule.match.hosts.isEmpty {
                unconstrained.append(index)
                continue
            }
            for pattern in rule.match.hosts {
                if pattern.isWildcard {
                    if wildcard[pattern.domain]?.last != index { wildcard[pattern.domain, default: []].append(index) }
                } else if exact[pattern.domain]?.last != index {
                    exact[pattern.domain, default: []].append(index)
                }
            }
        }
        self.unconstrained = unconstrained
        self.exact = exact
        self.wildcard = wildcard
    }

    /// Calls `body` with each candidate rule index in ascending order, until it returns false.
    func forEachCandidate(for request: RuleRequest, _ body: (Int) -> Bool) {
        var lists: [[Int]] = []
        if !exact.isEmpty, let list = exact[request.host] { lists.append(list) }
        if !wildcard.isEmpty {
            for suffix in request.hostSuffixes {
                if let list = wildcard[suffix] { lists.append(list) }
            }
        }
        if lists.isEmpty {
            for index in unconstrained where !body(index) { return }
            return
        }
        lists.append(unconstrained)
        var merged = lists.joined().sorted()
        var previous = -1
        merged.removeAll { index in
            defer { previous = index }
            return index == previous
        }
        for index in merged where !body(index) { return }
    }
}
