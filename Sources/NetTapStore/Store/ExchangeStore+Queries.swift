import Foundation
import NetTapCore

extension ExchangeStore {
    /// The exchange with this ID, exactly as it was stored; nil when there is none.
    public func exchange(id: UUID) throws -> Exchange? {
        try queue.read { db in
            let select = try db.cachedStatement("SELECT \(StoreSchema.exchangeColumns) FROM exchanges WHERE id = ?")
            select.reset()
            defer { select.reset() }
            try select.bind(id.storedText, at: 1)
            guard try select.step() else { return nil }
            return try ExchangeRowReader(db: db, includeBodies: true).exchange(from: select)
        }
    }

    /// The exchange whose ID starts with `prefix` (case-insensitive, at least 4 characters), for
    /// commands such as `nettap show 3F2A`. Nil when none matches; throws when several do.
    public func exchange(idPrefix prefix: String) throws -> Exchange? {
        let normalized = try Self.normalizedIDFragment(
            prefix, otherwise: "exchange ID prefix \"\(prefix)\" must be at least 4 hexadecimal characters")
        if let id = UUID(uuidString: normalized) { return try exchange(id: id) }
        // The ID index serves a range scan: every ID with the prefix sorts between prefix and prefix + "\u{7f}".
        return try onlyExchange(where: "id >= ?1 AND id < ?2", fragment: normalized, asGiven: prefix)
    }

    /// The exchange whose ID starts or ends with `fragment` (case-insensitive, at least 4
    /// characters), for `nettap show`. Captured exchanges have time-ordered IDs, whose first
    /// characters are shared by every exchange of the same minute, so the short form NetTap prints
    /// is the end of the ID (`ExchangeStore.shortID`); full IDs and starts still work, as they do
    /// for imported random IDs. Nil when none matches; throws when several do.
    public func exchange(shortID fragment: String) throws -> Exchange? {
        let normalized = try Self.normalizedIDFragment(
            fragment, otherwise: "exchange ID \"\(fragment)\" must be at least 4 hexadecimal characters from its start or its end")
        if let id = UUID(uuidString: normalized) { return try exchange(id: id) }
        // The start through the ID index (a range scan); the end by scanning that index alone
        // (it covers id and rowid), never the table with its headers and JSON.
        return try onlyExchange(
            where: """
                rowid IN (SELECT rowid FROM exchanges WHERE id >= ?1 AND id < ?2
                          UNION SELECT rowid FROM exchanges WHERE substr(id, -length(?1)) = ?1)
                """,
            fragment: normalized, asGiven: fragment)
    }

    /// `fragment` uppercased, as IDs are stored; throws `message` unless it is 4 or more hex digits and dashes.
    private static func normalizedIDFragment(_ fragment: String, otherwise message: String) throws -> String {
        let normalized = fragment.uppercased()
        guard normalized.count >= 4, normalized.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw ExchangeStoreError.invalidArgument(message)
        }
        return normalized
    }

    /// The one exchange matching `condition`, whose `?1` is `fragment` and `?2` the end of its
    /// range (`fragment` + "\u{7f}"). Nil when none does; throws `ambiguousID` when several do.
    private func onlyExchange(where condition: String, fragment: String, asGiven: String) throws -> Exchange? {
        try queue.read { db in
            let select = try db.cachedStatement("SELECT \(StoreSchema.exchangeColumns) FROM exchanges WHERE \(condition) LIMIT 2")
            select.reset()
            defer { select.reset() }
            try select.bind(fragment, at: 1)
            try select.bind(fragment + "\u{7f}", at: 2)
            let reader = ExchangeRowReader(db: db, includeBodies: true)
            var found: [Exchange] = []
            while try select.step() { found.append(try reader.exchange(from: select)) }
            if found.count > 1 {
                let matches = try db.int64(
                    "SELECT count(*) FROM exchanges WHERE \(condition)", [.text(fragment), .text(fragment + "\u{7f}")])
                throw ExchangeStoreError.ambiguousID(prefix: asGiven, matches: Int(matches))
            }
            return found.first
        }
    }

    /// The short form of an ID that `exchange(shortID:)` finds: its last 8 characters, which are
    /// random in time-ordered and random IDs alike.
    public static func shortID(_ id: UUID) -> String {
        String(id.uuidString.suffix(8))
    }

    /// One page of matching exchanges, newest first (or oldest first), starting after `cursor`.
    ///
    /// With `includeBodies: false` the bodies keep their metadata and sizes but hold no bytes:
    /// cheaper for listings.
    public func exchanges(
        matching filter: ExchangeFilter = ExchangeFilter(), limit: Int = 100, after cursor: ExchangeCursor? = nil,
        order: ExchangeOrder = .newestFirst, includeBodies: Bool = true
    ) throws -> ExchangePage {
        guard limit > 0 else { throw ExchangeStoreError.invalidArgument("limit must be positive, not \(limit)") }
        let query = filter.pageQuery(after: cursor, order: order, limit: limit)
        return try queue.read { db in
            var keys: [ExchangeCursor] = []
            try db.cachedStatement(query.sql).forEachRow(query.arguments) { row in
                keys.append(ExchangeCursor(startedAt: row.double(at: 1), rowid: row.int64(at: 0)))
            }
            let select = try db.cachedStatement("SELECT \(StoreSchema.exchangeColumns) FROM exchanges WHERE rowid = ?")
            let reader = ExchangeRowReader(db: db, includeBodies: includeBodies)
            var exchanges: [Exchange] = []
            exchanges.reserveCapacity(keys.count)
            for key in keys {
                try select.forEachRow([.integer(key.rowid)]) { row in exchanges.append(try reader.exchange(from: row)) }
            }
            return ExchangePage(exchanges: exchanges, nextCursor: keys.count == limit ? keys.last : nil)
        }
    }

    /// How many exchanges match.
    public func count(matching filter: ExchangeFilter = ExchangeFilter()) throws -> Int {
        let condition = filter.sqlCondition()
        return try queue.read { db in
            Int(try db.int64("SELECT count(*) FROM exchanges WHERE \(condition.sql)", condition.arguments))
        }
    }

    /// Calls `body` with every matching exchange, one page at a time, so that memory holds one
    /// page whatever the number of exchanges. `body` runs off the store's queue (it may write files,
    /// or even use the store). Each page is a consistent snapshot; exchanges stored after the
    /// walk passed their place are not visited.
    ///
    /// ```swift
    /// try store.forEach(matching: filter, order: .oldestFirst) { exchange in
    ///     try output.write(ExchangeJSON.line(exchange) + Data("\n".utf8))
    /// }
    /// ```
    public func forEach(
        matching filter: ExchangeFilter = ExchangeFilter(), order: ExchangeOrder = .newestFirst,
        pageSize: Int = 500, includeBodies: Bool = true, _ body: (Exchange) throws -> Void
    ) throws {
        var cursor: ExchangeCursor?
        repeat {
            let page = try exchanges(
                matching: filter, limit: pageSize, after: cursor, order: order, includeBodies: includeBodies)
            for exchange in page.exchanges { try body(exchange) }
            cursor = page.nextCursor
        } while cursor != nil
    }

    /// The matching exchanges as an `AsyncSequence` that reads one page at a time.
    ///
    /// ```swift
    /// for try await exchange in store.stream(matching: filter) { ... }
    /// ```
    public func stream(
        matching filter: ExchangeFilter = ExchangeFilter(), order: ExchangeOrder = .newestFirst,
        pageSize: Int = 500, includeBodies: Bool = true
    ) -> ExchangeStream {
        ExchangeStream(store: self, filter: filter, order: order, pageSize: pageSize, includeBodies: includeBodies)
    }
}
