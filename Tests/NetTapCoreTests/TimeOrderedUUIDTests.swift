import Foundation
import Testing

@testable import NetTapCore

@Suite("UUID.timeOrdered: version 7 ids that sort by time")
struct TimeOrderedUUIDTests {
    /// A fixed-sequence generator, so two runs give the same ids.
    struct Counter: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            return state
        }
    }

    @Test("the first 48 bits are the Unix time in milliseconds; version 7, RFC 9562 variant")
    func layout() {
        let date = Date(timeIntervalSince1970: 1_764_000_000.123)
        let id = UUID.timeOrdered(at: date)
        let bytes = withUnsafeBytes(of: id.uuid) { Array($0) }
        let milliseconds = bytes[0 ..< 6].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(milliseconds == 1_764_000_000_123)
        #expect(bytes[6] >> 4 == 7)
        #expect(bytes[8] >> 6 == 0b10)
        #expect(id.uuidString.dropFirst(14).first == "7")
    }

    @Test("later times sort after earlier ones, as text too; the same millisecond still differs")
    func ordering() {
        let start = Date(timeIntervalSince1970: 1_764_000_000)
        let ids = (0 ..< 500).map { UUID.timeOrdered(at: start.addingTimeInterval(Double($0) * 0.002)) }
        #expect(ids.map(\.uuidString) == ids.map(\.uuidString).sorted())
        let sameMillisecond = (0 ..< 1000).map { _ in UUID.timeOrdered(at: start) }
        #expect(Set(sameMillisecond).count == 1000)
    }

    @Test("a seeded generator gives the same id; times before 1970 or not finite give zero, beyond the range the maximum")
    func reproducibleAndClamped() {
        var first = Counter(state: 1)
        var second = Counter(state: 1)
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(UUID.timeOrdered(at: date, using: &first) == UUID.timeOrdered(at: date, using: &second))
        let early = UUID.timeOrdered(at: Date(timeIntervalSince1970: -5))
        #expect(early.uuidString.hasPrefix("00000000-0000-7"))
        let beyond = UUID.timeOrdered(at: Date(timeIntervalSince1970: 1e12))  // past the 48-bit millisecond range
        #expect(beyond.uuidString.hasPrefix("FFFFFFFF-FFFF-7"))
        #expect(UUID.timeOrdered(at: Date(timeIntervalSince1970: .nan)).uuidString.hasPrefix("00000000-0000-7"))
    }

    /// Hands out 1, 2, 3, ... so that a generator seeded by it has a known state.
    struct Sequence: RandomNumberGenerator {
        var last: UInt64 = 0
        mutating func next() -> UInt64 {
            last += 1
            return last
        }
    }

    @Test("the id generator is xoshiro256**: from the state 1, 2, 3, 4 it gives the algorithm's own first outputs")
    func xoshiroKnownAnswer() {
        var generator = Xoshiro256StarStar(seededBy: Sequence())
        // Computed with the authors' published C function from the same state.
        let expected: [UInt64] = [11520, 0, 1_509_978_240, 1_215_971_899_390_074_240, 1_216_172_134_540_287_360]
        #expect((0 ..< 5).map { _ in generator.next() } == expected)
    }

    @Test("ids made on many threads at once, in the same millisecond, are all different, and their random bits are balanced")
    func concurrentAndBalanced() async {
        let date = Date(timeIntervalSince1970: 1_764_000_000)
        let ids = await withTaskGroup(of: [UUID].self) { group in
            for _ in 0 ..< 8 { group.addTask { (0 ..< 2_000).map { _ in UUID.timeOrdered(at: date) } } }
            return await group.reduce(into: [UUID]()) { $0 += $1 }
        }
        #expect(Set(ids).count == 16_000)
        // Bytes 9-15 are wholly random: each bit should be set in about half of 16,000 ids.
        for byte in 9 ..< 16 {
            for bit in 0 ..< 8 {
                let set = ids.filter { withUnsafeBytes(of: $0.uuid) { $0[byte] } & (1 << bit) != 0 }.count
                #expect((7_400 ... 8_600).contains(set), "byte \(byte) bit \(bit) set in \(set) of 16000")
            }
        }
    }
}
