/// A seeded SplitMix64 generator: the same seed gives the same sequence on every platform, which
/// is what makes throttle failures reproducible in tests.
///
/// ```swift
/// var random = ThrottleRandom(seed: 42)
/// let first = random.nextUnit() // in 0..<1, the same on every run
/// ```
public struct ThrottleRandom: Sendable, Hashable, RandomNumberGenerator {
    private static let gamma: UInt64 = 0x9E37_79B9_7F4A_7C15
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= Self.gamma
        return Self.mix(state)
    }

    /// A double uniformly spread over 0..<1 (53 random bits).
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// The `ordinal`-th (from 0) unit value of the sequence seeded with `seed`, computed directly:
    /// SplitMix64 is counter-based, so no state needs to be kept between requests.
    public static func unit(seed: UInt64, ordinal: UInt64) -> Double {
        let value = mix(seed &+ (ordinal &+ 1) &* gamma)
        return Double(value >> 11) * 0x1.0p-53
    }

    private static func mix(_ input: UInt64) -> UInt64 {
        var z = input
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
