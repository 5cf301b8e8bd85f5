import Foundation

/// SHA-256 (FIPS 180-4), used to deduplicate stored bodies by content.
///
/// Written here because no crypto library is available to the package on every platform it
/// builds for; it is checked against the FIPS test vectors and `sha256sum`.
///
/// ```swift
/// let digest = SHA256.hash(Data("abc".utf8))   // 32 bytes
/// SHA256.hex(digest)                          // "ba7816bf..."
/// ```
public enum SHA256 {
    /// The 32-byte digest of `bytes`.
    public static func hash(_ bytes: some ContiguousBytes) -> [UInt8] {
        var state = State()
        bytes.withUnsafeBytes { buffer in
            let count = buffer.count
            var offset = 0
            while offset + 64 <= count {
                state.compress(buffer.baseAddress.unsafelyUnwrapped + offset)
                offset += 64
            }
            // Padding: 0x80, zeros, then the bit length as a 64-bit big-endian number, in one or
            // two final blocks built on the stack.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { tail in
                let remaining = count - offset
                tail.initialize(repeating: 0)
                if remaining > 0 {
                    UnsafeMutableRawBufferPointer(tail).copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[offset...]))
                }
                tail[remaining] = 0x80
                let tailLength = remaining + 9 <= 64 ? 64 : 128
                let bitLength = UInt64(count) &* 8
                for index in 0 ..< 8 {
                    tail[tailLength - 1 - index] = UInt8(truncatingIfNeeded: bitLength >> (8 * UInt64(index)))
                }
                let base = UnsafeRawPointer(tail.baseAddress.unsafelyUnwrapped)
                state.compress(base)
                if tailLength == 128 { state.compress(base + 64) }
            }
        }
        return state.digest
    }

    /// Lowercase hexadecimal of a digest.
    public static func hex(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(digest.count * 2)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    fileprivate static let roundConstants: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    /// The eight working words, kept in stored properties (not an array) so that the compiler
    /// holds them in registers across a block.
    private struct State {
        var h0: UInt32 = 0x6a09e667, h1: UInt32 = 0xbb67ae85, h2: UInt32 = 0x3c6ef372, h3: UInt32 = 0xa54ff53a
        var h4: UInt32 = 0x510e527f, h5: UInt32 = 0x9b05688c, h6: UInt32 = 0x1f83d9ab, h7: UInt32 = 0x5be0cd19

        var digest: [UInt8] {
            [UInt8](unsafeUninitializedCapacity: 32) { out, initialized in
                for (index, word) in [h0, h1, h2, h3, h4, h5, h6, h7].enumerated() {
                    out[index * 4] = UInt8(truncatingIfNeeded: word >> 24)
                    out[index * 4 + 1] = UInt8(truncatingIfNeeded: word >> 16)
                    out[index * 4 + 2] = UInt8(truncatingIfNeeded: word >> 8)
                    out[index * 4 + 3] = UInt8(truncatingIfNeeded: word)
                }
                initialized = 32
            }
        }

        @inline(__always)
        private static func rotr(_ value: UInt32, _ count: UInt32) -> UInt32 {
            (value >> count) | (value << (32 - count))
        }

        /// One round, with the eight words passed in rotated order so that nothing is shuffled:
        /// eight calls with the arguments rotated make one pass of eight rounds.
        @inline(__always)
        private static func round(
            _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32,
            _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32, _ kw: UInt32
        ) {
            let t1 = h &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ ((e & f) ^ (~e & g)) &+ kw
            let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
            d = d &+ t1
            h = t1 &+ t2
        }

        /// Processes the 64-byte block at `block`.
        mutating func compress(_ block: UnsafeRawPointer) {
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { buffer in
                let w = buffer.baseAddress.unsafelyUnwrapped
                for index in 0 ..< 16 {
                    w[index] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
                }
                for index in 16 ..< 64 {
                    let x = w[index - 15], y = w[index - 2]
                    let s0 = Self.rotr(x, 7) ^ Self.rotr(x, 18) ^ (x >> 3)
                    let s1 = Self.rotr(y, 17) ^ Self.rotr(y, 19) ^ (y >> 10)
                    w[index] = w[index - 16] &+ s0 &+ w[index - 7] &+ s1
                }
                var a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7
                SHA256.roundConstants.withUnsafeBufferPointer { constants in
                    let k = constants.baseAddress.unsafelyUnwrapped
                    var index = 0
                    while index < 64 {
                        Self.round(a, b, c, &d, e, f, g, &h, k[index] &+ w[index])
                        Self.round(h, a, b, &c, d, e, f, &g, k[index + 1] &+ w[index + 1])
                        Self.round(g, h, a, &b, c, d, e, &f, k[index + 2] &+ w[index + 2])
                        Self.round(f, g, h, &a, b, c, d, &e, k[index + 3] &+ w[index + 3])
                        Self.round(e, f, g, &h, a, b, c, &d, k[index + 4] &+ w[index + 4])
                        Self.round(d, e, f, &g, h, a, b, &c, k[index + 5] &+ w[index + 5])
                        Self.round(c, d, e, &f, g, h, a, &b, k[index + 6] &+ w[index + 6])
                        Self.round(b, c, d, &e, f, g, h, &a, k[index + 7] &+ w[index + 7])
                        index += 8
                    }
                }
                h0 = h0 &+ a; h1 = h1 &+ b; h2 = h2 &+ c; h3 = h3 &+ d
                h4 = h4 &+ e; h5 = h5 &+ f; h6 = h6 &+ g; h7 = h7 &+ h
            }
        }
    }
}
