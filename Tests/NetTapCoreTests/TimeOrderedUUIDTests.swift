import Foundation
import NetTapCore
import Testing

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
}
