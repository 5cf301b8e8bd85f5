import Foundation

extension UUID {
    /// A version 7 UUID (RFC 9562): the first 48 bits are the Unix time in milliseconds, the rest
    /// random apart from the version and variant bits.
    ///
    /// NetTap gives captured exchanges these ids because they sort by start time: a store's unique
    /// index on the id then grows at its end, as the time index does, instead of touching a random
    /// page for every row (with random version 4 ids that made each batch rewrite most of the
    /// index; see BENCHMARKS.md, store). The ids stay unique and unguessable enough for their use.
    public static func timeOrdered(at date: Date = Date()) -> UUID {
        var generator = SystemRandomNumberGenerator()
        return timeOrdered(at: date, using: &generator)
    }

    /// A version 7 UUID for `date` whose random bits come from `generator` (for reproducible data).
    public static func timeOrdered(at date: Date, using generator: inout some RandomNumberGenerator) -> UUID {
        let seconds = date.timeIntervalSince1970
        let milliseconds = seconds.isFinite && seconds > 0 ? UInt64(min(seconds * 1000, 0xFFFF_FFFF_FFFF)) : 0
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0 ..< 6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (40 - 8 * UInt64(index))) }
        bytes[6] = 0x70 | UInt8(truncatingIfNeeded: high >> 60)  // version 7, then 12 random bits
        bytes[7] = UInt8(truncatingIfNeeded: high >> 52)
        bytes[8] = 0x80 | (UInt8(truncatingIfNeeded: low >> 56) & 0x3F)  // variant 10, then 62 random bits
        for index in 9 ..< 16 { bytes[index] = UInt8(truncatingIfNeeded: low >> (8 * UInt64(15 - index))) }
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
