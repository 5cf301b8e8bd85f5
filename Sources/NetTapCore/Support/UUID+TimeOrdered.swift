import Foundation

extension UUID {
    /// A version 7 UUID (RFC 9562): the first 48 bits are the Unix time in milliseconds, the rest
    /// random apart from the version and variant bits.
    ///
    /// NetTap gives captured exchanges these ids because they sort by start time: a store's unique
    /// index on the id then grows at its end, as the time index does, instead of touching a random
    /// page for every row (with random version 4 ids that made each batch rewrite most of the
    /// index; see BENCHMARKS.md, store). The ids stay unique and unguessable enough for their use.
    ///
    /// The random bits come from `IDRandomness`, a generator seeded once from the system's: on
    /// Linux `UUID()` opens, reads and closes `/dev/urandom` on every call (3.9 µs in a probe,
    /// docs/linux-foundation-notes.md) and each system draw is a `getrandom` call (0.4 µs), while
    /// this runs once per captured request.
    public static func timeOrdered(at date: Date = Date()) -> UUID {
        var generator = IDRandomness.Draw()
        return timeOrdered(at: date, using: &generator)
    }

    /// A version 7 UUID for `date` whose random bits come from `generator` (for reproducible data).
    public static func timeOrdered(at date: Date, using generator: inout some RandomNumberGenerator) -> UUID {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)  // every byte is written below
        withUnsafeMutableBytes(of: &bytes) { raw in
            let high = generator.next() as UInt64
            let low = generator.next() as UInt64
            for index in 0 ..< 8 {
                raw[index] = UInt8(truncatingIfNeeded: high >> (8 * UInt64(7 - index)))
                raw[8 + index] = UInt8(truncatingIfNeeded: low >> (8 * UInt64(7 - index)))
            }
            stamp(raw, milliseconds: milliseconds(since1970: date))
        }
        return UUID(uuid: bytes)
    }

    /// Unix milliseconds, clamped to the 48 bits a version 7 UUID has (0 for dates before 1970).
    private static func milliseconds(since1970 date: Date) -> UInt64 {
        let seconds = date.timeIntervalSince1970
        return seconds.isFinite && seconds > 0 ? UInt64(min(seconds * 1000, 0xFFFF_FFFF_FFFF)) : 0
    }

    /// Writes the time into bytes 0-5 and the version and variant bits over random `raw`.
    private static func stamp(_ raw: UnsafeMutableRawBufferPointer, milliseconds: UInt64) {
        for index in 0 ..< 6 { raw[index] = UInt8(truncatingIfNeeded: milliseconds >> (40 - 8 * UInt64(index))) }
        raw[6] = 0x70 | (raw[6] & 0x0F)  // version 7, then 12 random bits
        raw[8] = 0x80 | (raw[8] & 0x3F)  // variant 10, then 62 random bits
    }
}

/// The random bits of time-ordered ids: one xoshiro256** generator per process, seeded from the
/// system generator the first time an id is made and advanced under a lock.
///
/// Ids need to be unique and not follow from the clock, not to be secret: nothing in NetTap
/// authorizes anything by an exchange id. Two processes collide only if their 256-bit seeds
/// match. (A process that forks without exec continues the same sequence in both halves.)
enum IDRandomness {
    private static let state = Protected(Xoshiro256StarStar(seededBy: SystemRandomNumberGenerator()))

    /// Hands out numbers from the shared generator, one lock per number.
    struct Draw: RandomNumberGenerator {
        mutating func next() -> UInt64 {
            IDRandomness.state.withLock { $0.next() }
        }
    }
}

/// xoshiro256** (Blackman and Vigna, 2018): 256 bits of state, fast and well distributed.
struct Xoshiro256StarStar: RandomNumberGenerator {
    private var s0, s1, s2, s3: UInt64

    init(seededBy seed: some RandomNumberGenerator) {
        var seed = seed
        repeat {
            s0 = seed.next()
            s1 = seed.next()
            s2 = seed.next()
            s3 = seed.next()
        } while s0 | s1 | s2 | s3 == 0  // the one state it must never have
    }

    mutating func next() -> UInt64 {
        let result = rotate(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotate(s3, 45)
        return result
    }

    private func rotate(_ x: UInt64, _ k: UInt64) -> UInt64 {
        (x << k) | (x >> (64 - k))
    }
}
