import Foundation

/// When each chunk of a body may be delivered under a bandwidth limit and an added latency.
///
/// A pure calculation: byte `n` may be delivered `latency + n / bytesPerSecond` seconds after the
/// start, so a body of N bytes completes at exactly `latency + N / bytesPerSecond`. NetTap's capture
/// layer delivers a throttled response whole at its completion time (on Linux a completion handler
/// sees only the last part a loader delivers); `chunks` is for a loader that can deliver in parts.
/// Tests check the times from NetTap's own timestamps.
///
/// ```swift
/// let schedule = ThrottleSchedule(bytesPerSecond: 200_000, latency: 0.1)
/// schedule.completionTime(forByteCount: 2_097_152) // 10.585... seconds
/// for chunk in schedule.chunks(totalBytes: 50_000) { /* deliver chunk.range at chunk.time */ }
/// ```
public struct ThrottleSchedule: Sendable, Hashable {
    /// nil means unlimited.
    public let bytesPerSecond: Int?
    public let latency: TimeInterval
    /// Bytes per delivery: a tenth of a second's worth, from 512 bytes to 64 KiB.
    public let chunkSize: Int

    public init(bytesPerSecond: Int?, latency: TimeInterval, chunkSize: Int? = nil) {
        let rate = bytesPerSecond.flatMap { $0 > 0 ? $0 : nil }
        self.bytesPerSecond = rate
        self.latency = max(0, latency)
        if let chunkSize, chunkSize > 0 {
            self.chunkSize = chunkSize
        } else if let rate {
            self.chunkSize = min(65_536, max(512, rate / 10))
        } else {
            self.chunkSize = 65_536
        }
    }

    /// One delivery: which bytes, and when (seconds from the start of the request).
    public struct Chunk: Sendable, Hashable {
        public let range: Range<Int>
        public let time: TimeInterval
    }

    /// Seconds from the start until the first `count` bytes may all have been delivered.
    public func completionTime(forByteCount count: Int) -> TimeInterval {
        guard let rate = bytesPerSecond else { return latency }
        return latency + Double(count) / Double(rate)
    }

    /// The deliveries for a body of `totalBytes` (one chunk at `latency` for an empty body).
    public func chunks(totalBytes: Int) -> [Chunk] {
        guard totalBytes > 0 else { return [Chunk(range: 0..<0, time: latency)] }
        let size = bytesPerSecond == nil ? max(totalBytes, 1) : chunkSize
        var result: [Chunk] = []
        result.reserveCapacity(totalBytes / size + 1)
        var start = 0
        while start < totalBytes {
            let end = min(totalBytes, start + size)
            result.append(Chunk(range: start..<end, time: completionTime(forByteCount: end)))
            start = end
        }
        return result
    }

    /// For streaming: given `delivered` bytes already out, and `elapsed` seconds since the start,
    /// how many more bytes may go now (0 means wait, see `waitTime(untilDelivered:elapsed:)`).
    public func allowance(delivered: Int, elapsed: TimeInterval) -> Int {
        guard elapsed >= latency else { return 0 }
        guard let rate = bytesPerSecond else { return Int.max }
        let allowed = Int(((elapsed - latency) * Double(rate)).rounded(.down))
        return max(0, allowed - delivered)
    }

    /// Seconds to wait, from `elapsed`, until the first `count` bytes may all have been delivered.
    public func waitTime(untilDelivered count: Int, elapsed: TimeInterval) -> TimeInterval {
        max(0, completionTime(forByteCount: count) - elapsed)
    }
}
