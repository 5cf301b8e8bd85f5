import Foundation

/// Where a page of results ended: the (started_at, rowid) of its last exchange. Pass it back to
/// get the next page; pages neither skip nor repeat exchanges, even when new ones arrive meanwhile.
public struct ExchangeCursor: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `started_at` of the last exchange (unix seconds, as stored).
    public var startedAt: Double
    /// `rowid` of the last exchange.
    public var rowid: Int64

    public init(startedAt: Double, rowid: Int64) {
        self.startedAt = startedAt
        self.rowid = rowid
    }

    /// A compact text form for command lines (`--after TOKEN`): exact, since it holds the bit pattern.
    public var description: String {
        String(startedAt.bitPattern, radix: 16) + "-" + String(rowid)
    }

    /// Reads `description`; nil when `token` is not one.
    public init?(token: String) {
        let parts = token.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let bits = UInt64(parts[0], radix: 16), let rowid = Int64(parts[1]) else {
            return nil
        }
        self.init(startedAt: Double(bitPattern: bits), rowid: rowid)
    }
}
