import Foundation
import NetTapCore

/// One page of exchanges and the cursor for the next one.
public struct ExchangePage: Sendable, Hashable {
    public var exchanges: [Exchange]
    /// Pass to the next query to continue; nil when this page was the last.
    public var nextCursor: ExchangeCursor?

    public init(exchanges: [Exchange], nextCursor: ExchangeCursor?) {
        self.exchanges = exchanges
        self.nextCursor = nextCursor
    }
}
