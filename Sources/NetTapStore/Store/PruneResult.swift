import Foundation

/// What a prune removed.
public struct PruneResult: Sendable, Hashable, Codable {
    public var removedExchanges = 0
    /// Bodies deleted because no exchange referred to them any more.
    public var removedBodies = 0
    /// `StoreStats.usedBytes` before and after.
    public var usedBytesBefore: Int64 = 0
    public var usedBytesAfter: Int64 = 0
    /// True when every limit is met (false when an incremental pass stopped early).
    public var limitsMet = true

    public init() {}
}
