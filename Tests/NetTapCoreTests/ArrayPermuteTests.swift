import Testing
@testable import NetTapCore

@Suite struct ArrayPermuteTests {
    /// Every permutation of up to six elements, against the definition: position `i` takes the
    /// element that was at `sources[i]`.
    @Test func matchesMappingTheSourcesForEveryPermutation() {
        var checked = 0
        for count in 0...6 {
            for sources in Self.permutations(of: Array(0..<count)) {
                var elements = (0..<count).map { "field \($0)" }
                let expected = sources.map { elements[$0] }
                elements.permute(takingEach: sources)
                #expect(elements == expected, "sources \(sources)")
                checked += 1
            }
        }
        // 0! + 1! + ... + 6!
        #expect(checked == 1 + 1 + 2 + 6 + 24 + 120 + 720)
    }

    private static func permutations(of values: [Int]) -> [[Int]] {
        guard let first = values.first else { return [[]] }
        return permutations(of: Array(values.dropFirst())).flatMap { rest in
            (0...rest.count).map { position in
                var result = rest
                result.insert(first, at: position)
                return result
            }
        }
    }
}
