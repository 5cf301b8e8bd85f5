import Foundation
import NetTapCore

/// Matching exchanges read page by page from a store; see `ExchangeStore.stream(matching:)`.
public struct ExchangeStream: AsyncSequence, Sendable {
    public typealias Element = Exchange

    let store: ExchangeStore
    let filter: ExchangeFilter
    let order: ExchangeOrder
    let pageSize: Int
    let includeBodies: Bool

    public func makeAsyncIterator() -> Iterator {
        Iterator(stream: self)
    }

    /// Holds one page at a time.
    public struct Iterator: AsyncIteratorProtocol {
        let stream: ExchangeStream
        var buffer: [Exchange] = []
        var position = 0
        var cursor: ExchangeCursor?
        var finished = false

        init(stream: ExchangeStream) {
            self.stream = stream
        }

        public mutating func next() async throws -> Exchange? {
            if position == buffer.count {
                guard !finished else { return nil }
                let page = try stream.store.exchanges(
                    matching: stream.filter, limit: stream.pageSize, after: cursor, order: stream.order,
                    includeBodies: stream.includeBodies)
                buffer = page.exchanges
                position = 0
                cursor = page.nextCursor
                finished = page.nextCursor == nil
                if buffer.isEmpty { return nil }
            }
            defer { position += 1 }
            return buffer[position]
        }
    }
}
