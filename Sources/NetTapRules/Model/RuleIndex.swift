/// Which rules can possibly match a host, so that evaluation skips rules for other hosts without
/// looking at them: rules with host conditions are filed under the hash of each exact host and of
/// each wildcard domain; rules without one are always candidates. Hash collisions only add
/// candidates (the full match checks the host), they never hide one.
struct RuleIndex: Sendable {
    private let unconstrained: [Int]
    private let exact: [UInt64: [Int]]
    private let wildcard: [UInt64: [Int]]

    init(rules: [Rule]) {
        var unconstrained: [Int] = []
        var exact: [UInt64: [Int]] = [:]
        var wildcard: [UInt64: [Int]] = [:]
        for (index, rule) in rules.enumerated() where rule.isEnabled {
            if rule.match.hosts.isEmpty {
                unconstrained.append(index)
                continue
            }
            for pattern in rule.match.hosts {
                let key = RulePrefilter.hash(Substring(pattern.domain))
                if pattern.isWildcard {
                    if wildcard[key]?.last != index { wildcard[key, default: []].append(index) }
                } else if exact[key]?.last != index {
                    exact[key, default: []].append(index)
                }
            }
        }
        self.unconstrained = unconstrained
        self.exact = exact
        self.wildcard = wildcard
    }

    /// The indexes of the rules that may match `request`, ascending.
    func candidates(for request: RuleRequest) -> [Int] {
        let suffixes = request.storage.hostSuffixHashes
        var lists: [[Int]] = []
        if !exact.isEmpty, let hostHash = suffixes.first, let list = exact[hostHash] { lists.append(list) }
        if !wildcard.isEmpty {
            for suffix in suffixes {
                if let list = wildcard[suffix] { lists.append(list) }
            }
        }
        if lists.isEmpty { return unconstrained }
        lists.append(unconstrained)
        var merged = lists.joined().sorted()
        var previous = -1
        merged.removeAll { index in
            defer { previous = index }
            return index == previous
        }
        return merged
    }
}
