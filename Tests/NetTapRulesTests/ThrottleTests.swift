import Foundation
import Testing
import NetTapRules

@Suite struct ThrottleRandomTests {
    @Test func matchesTheSplitMix64ReferenceSequence() {
        // Reference outputs of SplitMix64 seeded with 0 (Steele, Lea and Flood; as in Java's SplittableRandom).
        var random = ThrottleRandom(seed: 0)
        #expect(random.next() == 0xE220_A839_7B1D_CDAF)
        #expect(random.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(random.next() == 0x06C4_5D18_8009_454F)
    }

    @Test func directOrdinalAccessEqualsTheSequence() {
        var random = ThrottleRandom(seed: 1234)
        for ordinal in 0..<100 {
            #expect(ThrottleRandom.unit(seed: 1234, ordinal: UInt64(ordinal)) == random.nextUnit())
        }
    }

    @Test func unitValuesStayInRange() {
        var random = ThrottleRandom(seed: 9)
        for _ in 0..<10_000 {
            let value = random.nextUnit()
            #expect(value >= 0 && value < 1)
        }
    }
}

@Suite struct ThrottleFailureTests {
    /// Failures over 2,000 requests with a fixed seed stay within four standard deviations of the
    /// binomial mean (n = 2000): p = 0.1 gives 200 ± 53.7, p = 0.5 gives 1000 ± 89.4.
    @Test(arguments: [(0.1, 42 as UInt64), (0.1, 7), (0.5, 42), (0.02, 99)])
    func failureCountWithinFourSigma(probability: Double, seed: UInt64) {
        let profile = ThrottleProfile(failureProbability: probability, failureError: .notConnectedToInternet, seed: seed)
        let n = 2_000.0
        let failures = (0..<2_000).filter { profile.failure(ordinal: UInt64($0), defaultSeed: 0) != nil }.count
        let mean = n * probability
        let sigma = (n * probability * (1 - probability)).squareRoot()
        #expect(Double(failures) >= mean - 4 * sigma && Double(failures) <= mean + 4 * sigma, "\(failures) failures")
    }

    @Test func sameSeedSameFailuresDifferentSeedDifferentOnes() {
        let a = ThrottleProfile(failureProbability: 0.3, seed: 1)
        let b = ThrottleProfile(failureProbability: 0.3, seed: 2)
        let failuresA1 = (0..<500).filter { a.failure(ordinal: UInt64($0), defaultSeed: 0) != nil }
        let failuresA2 = (0..<500).filter { a.failure(ordinal: UInt64($0), defaultSeed: 0) != nil }
        let failuresB = (0..<500).filter { b.failure(ordinal: UInt64($0), defaultSeed: 0) != nil }
        #expect(failuresA1 == failuresA2)
        #expect(failuresA1 != failuresB)
        #expect(a.failure(ordinal: UInt64(failuresA1[0]), defaultSeed: 0) == .networkConnectionLost)
    }

    @Test func zeroAndOneProbabilities() {
        let never = ThrottleProfile(failureProbability: 0)
        let always = ThrottleProfile(failureProbability: 1, failureError: .timedOut)
        #expect((0..<1000).allSatisfy { never.failure(ordinal: UInt64($0), defaultSeed: 3) == nil })
        #expect((0..<1000).allSatisfy { always.failure(ordinal: UInt64($0), defaultSeed: 3) == .timedOut })
    }

    @Test func evaluationDrawsByOrdinalAndSaysSo() throws {
        let rules = try ruleSet(
            """
            {"version": 1, "seed": 5, "rules": [{"name": "flaky", "match": {}, "actions": [
              {"throttle": {"failureProbability": 0.5, "failureError": "timedOut"}}]}]}
            """)
        let profile = ThrottleProfile(failureProbability: 0.5, failureError: .timedOut)
        for ordinal in 0..<50 as Range<UInt64> {
            let decision = rules.evaluate(request("GET", "https://a.com/"), ordinal: ordinal)
            let expected = profile.failure(ordinal: ordinal, defaultSeed: 5)
            #expect(decision.throttleFailure == expected)
            #expect(decision.modifications.last?.detail == (expected == nil ? "fails 50% with timedOut (-1001)" : "failed with timedOut (-1001)"))
        }
    }
}

@Suite struct ThrottleScheduleTests {
    @Test func completionTimeIsLatencyPlusBytesOverRate() {
        let schedule = ThrottleSchedule(bytesPerSecond: 200_000, latency: 0.1)
        #expect(schedule.completionTime(forByteCount: 0) == 0.1)
        #expect(abs(schedule.completionTime(forByteCount: 2_097_152) - 10.58576) < 1e-9)
        #expect(ThrottleSchedule(bytesPerSecond: nil, latency: 0.3).completionTime(forByteCount: 1 << 30) == 0.3)
    }

    @Test func chunksCoverTheBodyInOrderAtTheirTimes() {
        let schedule = ThrottleSchedule(bytesPerSecond: 16_000, latency: 0.3)
        #expect(schedule.chunkSize == 1_600)
        let chunks = schedule.chunks(totalBytes: 5_000)
        #expect(chunks.map(\.range) == [0..<1600, 1600..<3200, 3200..<4800, 4800..<5000])
        let expected = [0.4, 0.5, 0.6, 0.6125]
        #expect(chunks.count == expected.count)
        for (chunk, time) in zip(chunks, expected) {
            #expect(abs(chunk.time - time) < 1e-12)
        }
        #expect(ThrottleSchedule(bytesPerSecond: nil, latency: 0.2).chunks(totalBytes: 10).map(\.range) == [0..<10])
        #expect(schedule.chunks(totalBytes: 0).map(\.time) == [0.3])
    }

    @Test func chunkSizeIsATenthOfASecondWithinBounds() {
        #expect(ThrottleSchedule(bytesPerSecond: 1_000, latency: 0).chunkSize == 512)
        #expect(ThrottleSchedule(bytesPerSecond: 6_250_000, latency: 0).chunkSize == 65_536)
        #expect(ThrottleSchedule(bytesPerSecond: 200_000, latency: 0).chunkSize == 20_000)
        #expect(ThrottleSchedule(bytesPerSecond: 200_000, latency: 0, chunkSize: 999).chunkSize == 999)
    }

    @Test func streamingAllowanceAndWait() {
        let schedule = ThrottleSchedule(bytesPerSecond: 10_000, latency: 1)
        #expect(schedule.allowance(delivered: 0, elapsed: 0.5) == 0)
        #expect(schedule.allowance(delivered: 0, elapsed: 1.25) == 2_500)
        #expect(schedule.allowance(delivered: 2_000, elapsed: 1.25) == 500)
        #expect(schedule.allowance(delivered: 3_000, elapsed: 1.25) == 0)
        #expect(schedule.waitTime(untilDelivered: 5_000, elapsed: 1.25) == 0.25)
        #expect(schedule.waitTime(untilDelivered: 100, elapsed: 9) == 0)
        #expect(ThrottleSchedule(bytesPerSecond: nil, latency: 0).allowance(delivered: 5, elapsed: 0) == Int.max)
    }
}

@Suite struct ThrottlePresetTests {
    @Test(arguments: [
        ("gprs", 7_000, 3_500, 0.5, nil as Double?),
        ("edge", 16_000, 8_000, 0.3, nil),
        ("3g", 400_000, 41_250, 0.1, nil),
        ("lte", 6_250_000, 1_250_000, 0.05, nil),
        ("wifi-lossy", 1_500_000, 1_500_000, 0.02, 0.05),
        ("very-bad", 125_000, 125_000, 0.5, 0.1),
    ])
    func presetFigures(name: String, down: Int, up: Int, latency: Double, failure: Double?) throws {
        let rules = try ruleSet(#"{"version": 1, "rules": [{"match": {}, "actions": [{"throttle": {"preset": ""# + name + #""}}]}]}"#)
        let profile = try #require(rules.evaluate(request("GET", "https://a.com/")).throttle)
        #expect(profile.preset == name)
        #expect(profile.downloadBytesPerSecond == down)
        #expect(profile.uploadBytesPerSecond == up)
        #expect(profile.latency == latency)
        #expect(profile.failureProbability == failure)
    }

    @Test func ownFieldsOverrideThePreset() throws {
        let rules = try ruleSet(
            #"{"version": 1, "rules": [{"match": {}, "actions": [{"throttle": {"preset": "very-bad", "failureProbability": 0, "latency": 2}}]}]}"#)
        let profile = try #require(rules.evaluate(request("GET", "https://a.com/")).throttle)
        #expect(profile.failureProbability == 0)
        #expect(profile.latency == 2)
        #expect(profile.downloadBytesPerSecond == 125_000)
    }
}
