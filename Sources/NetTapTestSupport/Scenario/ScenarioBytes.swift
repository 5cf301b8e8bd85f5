import Foundation

/// Deterministic test bodies: the same count and seed always give the same bytes, so a test can
/// check a downloaded body byte for byte without the server telling it what it sent.
///
/// Bytes come from xorshift64* seeded through splitmix64, eight little-endian bytes per step.
/// The TLS test server's Python script implements the same generator.
///
/// ```swift
/// let (data, _) = try await session.data(from: scenario.url("/bytes/5000?seed=7"))
/// #expect(data == ScenarioBytes.bytes(count: 5000, seed: 7))
/// ```
public enum ScenarioBytes {
    /// `count` pseudo-random bytes for `seed`.
    public static func bytes(count: Int, seed: UInt64 = 0) -> Data {
        var stream = Stream(seed: seed)
        return stream.next(max(0, count))
    }

    /// `count` bytes of readable, compressible ASCII text: numbered lines, cut at `count`.
    public static func text(count: Int) -> Data {
        var data = Data(capacity: max(0, count))
        var line = 0
        while data.count < count {
            line += 1
            let number = String(line)
            let padded = String(repeating: "0", count: max(0, 6 - number.count)) + number
            data.append(contentsOf: "line \(padded): the quick brown fox jumps over the lazy dog\n".utf8)
        }
        if data.count > count { data.removeSubrange(count...) }
        return data
    }

    /// The same byte sequence produced piece by piece, for streaming large bodies.
    public struct Stream: Sendable {
        private var state: UInt64
        private var pending: UInt64 = 0
        private var pendingCount = 0

        public init(seed: UInt64) {
            var mixed = seed &+ 0x9E37_79B9_7F4A_7C15
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            mixed ^= mixed >> 31
            state = mixed == 0 ? 0x9E37_79B9_7F4A_7C15 : mixed
        }

        private mutating func nextWord() -> UInt64 {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return state &* 0x2545_F491_4F6C_DD1D
        }

        /// The next `count` bytes of the sequence.
        public mutating func next(_ count: Int) -> Data {
            var data = Data(count: count)
            data.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) in
                var index = 0
                while index < count && pendingCount > 0 {
                    buffer[index] = UInt8(truncatingIfNeeded: pending)
                    pending >>= 8
                    pendingCount -= 1
                    index += 1
                }
                while count - index >= 8 {
                    buffer.storeBytes(of: nextWord().littleEndian, toByteOffset: index, as: UInt64.self)
                    index += 8
                }
                if index < count {
                    pending = nextWord()
                    pendingCount = 8
                    while index < count {
                        buffer[index] = UInt8(truncatingIfNeeded: pending)
                        pending >>= 8
                        pendingCount -= 1
                        index += 1
                    }
                }
            }
            return data
        }
    }
}
