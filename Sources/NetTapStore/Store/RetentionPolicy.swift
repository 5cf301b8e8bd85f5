import Foundation

/// How much a store keeps: at most so many exchanges, so many bytes, so old. Limits left nil do
/// not apply. A `StoreSink` applies its policy after each batch, deleting the oldest exchanges
/// a small chunk at a time so that no single delete holds the database for long.
///
/// ```swift
/// let policy = RetentionPolicy(maxCount: 50_000, maxTotalBytes: 200 << 20, maxAge: 7 * 86_400)
/// ```
public struct RetentionPolicy: Sendable, Hashable, Codable {
    /// At most this many exchanges.
    public var maxCount: Int?
    /// At most this many bytes of database pages in use (`StoreStats.usedBytes`).
    public var maxTotalBytes: Int64?
    /// Exchanges that started longer ago than this many seconds are removed.
    public var maxAge: TimeInterval?

    public init(maxCount: Int? = nil, maxTotalBytes: Int64? = nil, maxAge: TimeInterval? = nil) {
        self.maxCount = maxCount
        self.maxTotalBytes = maxTotalBytes
        self.maxAge = maxAge
    }

    /// Keeps everything.
    public static let unlimited = RetentionPolicy()

    /// 256 MiB and 14 days, like the inspectors people know.
    public static let standard = RetentionPolicy(maxTotalBytes: 256 << 20, maxAge: 14 * 86_400)

    public var isUnlimited: Bool { maxCount == nil && maxTotalBytes == nil && maxAge == nil }
}
