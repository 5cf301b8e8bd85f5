import Foundation

/// How a matching request is slowed down or made to fail, as on a weak network.
///
/// Every field is optional so that profiles from several matching rules merge field by field:
/// a later rule's value replaces an earlier one's (`merged(with:)`), and a preset is a profile
/// whose fields the same action's own fields override.
///
/// ```json
/// {"throttle": {"preset": "3g", "failureProbability": 0.05, "failureError": "networkConnectionLost"}}
/// ```
public struct ThrottleProfile: Sendable, Hashable, CustomStringConvertible {
    /// The preset the profile started from, for descriptions.
    public var preset: String?
    /// Seconds added once, before the response (or the failure) arrives.
    public var latency: TimeInterval?
    /// Bytes per second at which the response body is delivered.
    public var downloadBytesPerSecond: Int?
    /// Bytes per second at which the request body is sent.
    public var uploadBytesPerSecond: Int?
    /// The chance, from 0 to 1, that the request fails with `failureError`.
    public var failureProbability: Double?
    public var failureError: URLErrorCode?
    /// Fails the request with `timedOut` after this many seconds without an answer.
    public var forcedTimeout: TimeInterval?
    /// The seed of the failure draw; the rule set's seed when nil.
    public var seed: UInt64?

    public init(
        preset: String? = nil, latency: TimeInterval? = nil, downloadBytesPerSecond: Int? = nil,
        uploadBytesPerSecond: Int? = nil, failureProbability: Double? = nil, failureError: URLErrorCode? = nil,
        forcedTimeout: TimeInterval? = nil, seed: UInt64? = nil
    ) {
        self.preset = preset
        self.latency = latency
        self.downloadBytesPerSecond = downloadBytesPerSecond
        self.uploadBytesPerSecond = uploadBytesPerSecond
        self.failureProbability = failureProbability
        self.failureError = failureError
        self.forcedTimeout = forcedTimeout
        self.seed = seed
    }

    /// This profile with every field that `later` sets taken from `later`.
    public func merged(with later: ThrottleProfile) -> ThrottleProfile {
        ThrottleProfile(
            preset: later.preset ?? preset,
            latency: later.latency ?? latency,
            downloadBytesPerSecond: later.downloadBytesPerSecond ?? downloadBytesPerSecond,
            uploadBytesPerSecond: later.uploadBytesPerSecond ?? uploadBytesPerSecond,
            failureProbability: later.failureProbability ?? failureProbability,
            failureError: later.failureError ?? failureError,
            forcedTimeout: later.forcedTimeout ?? forcedTimeout,
            seed: later.seed ?? seed)
    }

    /// The error the request with this ordinal fails with, or nil when it goes through.
    /// Deterministic: the same seed and ordinal always give the same answer.
    public func failure(ordinal: UInt64, defaultSeed: UInt64) -> URLErrorCode? {
        guard let probability = failureProbability, probability > 0 else { return nil }
        let draw = ThrottleRandom.unit(seed: seed ?? defaultSeed, ordinal: ordinal)
        return draw < probability ? (failureError ?? .networkConnectionLost) : nil
    }

    /// The pacing of the response body.
    public var downloadSchedule: ThrottleSchedule {
        ThrottleSchedule(bytesPerSecond: downloadBytesPerSecond, latency: latency ?? 0)
    }

    /// The pacing of the request body (no latency: it is added once, to the response).
    public var uploadSchedule: ThrottleSchedule {
        ThrottleSchedule(bytesPerSecond: uploadBytesPerSecond, latency: 0)
    }

    public var description: String {
        var parts: [String] = []
        if let preset { parts.append("preset \(preset)") }
        if let latency { parts.append("latency \(Self.format(latency)) s") }
        if let down = downloadBytesPerSecond { parts.append("down \(down) B/s") }
        if let up = uploadBytesPerSecond { parts.append("up \(up) B/s") }
        if let probability = failureProbability, probability > 0 {
            parts.append("fails \(Self.format(probability * 100))% with \(failureError ?? .networkConnectionLost)")
        }
        if let forcedTimeout { parts.append("times out after \(Self.format(forcedTimeout)) s") }
        if let seed { parts.append("seed \(seed)") }
        return "throttle " + (parts.isEmpty ? "(no limits)" : parts.joined(separator: ", "))
    }

    /// A number without trailing zeros: 0.25, 3, 12.5.
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        var text = String(format: "%.6f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
