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
        var state = initialState
        let digest = bytes.withUnsafeBytes { buffer -> [UInt8] in
            let count = buffer.count
            var offset = 0
            while offset + 64 <= count {
                compress(&state, UnsafeRawBufferPointer(rebasing: buffer[offset ..< offset + 64]))
                offset += 64
            }
            // Padding: 0x80, zeros, then the bit length as a 64-bit big-endian number.
            var tail = [UInt8](repeating: 0, count: 128)
            let remaining = count - offset
            for index in 0 ..< remaining { tail[index] = buffer[offset + index] }
            tail[remaining] = 0x80
            let tailLength = remaining + 9 <= 64 ? 64 : 128
            let bitLength = UInt64(count) &* 8
            for index in 0 ..< 8 {
                tail[tailLength - 1 - index] = UInt8(truncatingIfNeeded: bitLength >> (8 * UInt64(index)))
            }
            tail.withUnsafeBytes { padded in
                compress(&state, UnsafeRawBufferPointer(rebasing: padded[0 ..< 64]))
                if tailLength == 128 {
                    compress(&state, UnsafeRawBufferPointer(rebasing: padded[64 ..< 128]))
                }
            }
            var out = [UInt8](repeating: 0, count: 32)
            for (index, word) in state.enumerated() {
                out[index * 4] = UInt8(truncatingIfNeeded: word >> 24)
                out[index * 4 + 1] = UInt8(truncatingIfNeeded: word >> 16)
                out[index * 4 + 2] = UInt8(truncatingIfNeeded: word >> 8)
                out[index * 4 + 3] = UInt8(truncatingIfNeeded: word)
            }
            return out
        }
        return digest
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

    private static let initialState: [UInt32] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    ]

    private static let roundConstants: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    @inline(__always)
    private static func rotr(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 - count))
    }

    /// Processes one 64-byte block.
    private static func compress(_ state: inout [UInt32], _ block: UnsafeRawBufferPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for index in 0 ..< 16 {
                let base = index * 4
                w[index] = UInt32(block[base]) << 24 | UInt32(block[base + 1]) << 16
                    | UInt32(block[base + 2]) << 8 | UInt32(block[base + 3])
            }
            for index in 16 ..< 64 {
                let s0 = rotr(w[index - 15], 7) ^ rotr(w[index - 15], 18) ^ (w[index - 15] >> 3)
                let s1 = rotr(w[index - 2], 17) ^ rotr(w[index - 2], 19) ^ (w[index - 2] >> 10)
                w[index] = w[index - 16] &+ s0 &+ w[index - 7] &+ s1
            }
            var a = state[0], b = state[1], c = state[2], d = state[3]
            var e = state[4], f = state[5], g = state[6], h = state[7]
            roundConstants.withUnsafeBufferPointer { k in
                for index in 0 ..< 64 {
                    let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
                    let choice = (e & f) ^ (~e & g)
                    let t1 = h &+ s1 &+ choice &+ k[index] &+ w[index]
                    let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = s0 &+ majority
                    h = g; g = f; f = e; e = d &+ t1
                    d = c; c = b; b = a; a = t1 &+ t2
                }
            }
            state[0] = state[0] &+ a; state[1] = state[1] &+ b; state[2] = state[2] &+ c; state[3] = state[3] &+ d
            state[4] = state[4] &+ e; state[5] = state[5] &+ f; state[6] = state[6] &+ g; state[7] = state[7] &+ h
        }
    }
}
