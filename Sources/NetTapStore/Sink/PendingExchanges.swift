import NetTapCore

/// The exchanges waiting for the next batch: at most `limit`; when full, a new one replaces the
/// oldest, which counts as dropped. Never grows past the limit, never blocks.
struct PendingExchanges {
    let limit: Int
    private var items: [Exchange] = []
    /// Where the oldest item is once the buffer has wrapped.
    private var head = 0

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    var count: Int { items.count }

    /// Appends `exchange`; returns true when the oldest pending one was dropped to make room.
    mutating func append(_ exchange: Exchange) -> Bool {
        if items.count < limit {
            items.append(exchange)
            return false
        }
        items[head] = exchange
        head = (head + 1) % limit
        return true
    }

    /// Everything pending, oldest first; leaves the buffer empty.
    mutating func drain() -> [Exchange] {
        let drained = head == 0 ? items : Array(items[head...]) + Array(items[..<head])
        items = []
        head = 0
        return drained
    }
}
