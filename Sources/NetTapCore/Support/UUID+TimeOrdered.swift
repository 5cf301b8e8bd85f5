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
        // A version 4 UUID is 122 random bits from one draw of the system generator, half the
        // cost of two 64-bit draws here (it runs once per captured request).
        var bytes = UUID().uuid
        withUnsafeMutableBytes(of: &bytes) { raw in
            stamp(raw, milliseconds: milliseconds(since1970: date))
        }
        return UUID(uuid: bytes)
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
