import Foundation

extension ExchangeStore {
    /// Exchanges deleted per transaction: small, so that a prune never holds the write lock long.
    static let pruneChunk = 200
    /// Exchanges deleted per transaction while over the size limit, where each chunk is re-measured.
    static let sizePruneChunk = 50

    /// Removes the oldest exchanges until every given limit is met, in small transactions, and
    /// gives the freed pages back to the file system. `progress`, when given, is called after
    /// each transaction with the totals so far (for a progress line; it runs on the caller's thread).
    ///
    /// ```swift
    /// let result = try store.prune(olderThan: Date().addingTimeInterval(-7 * 86_400), maxSize: 200 << 20)
    /// print("removed \(result.removedExchanges) exchanges")
    /// ```
    public func prune(
        olderThan cutoff: Date? = nil, maxSize: Int64? = nil, maxCount: Int? = nil,
        progress: ((PruneResult) -> Void)? = nil
    ) throws -> PruneResult {
        if let maxSize, maxSize < 0 { throw ExchangeStoreError.invalidArgument("maxSize must not be negative") }
        if let maxCount, maxCount < 0 { throw ExchangeStoreError.invalidArgument("maxCount must not be negative") }
        return try prune(
            limits: Limits(cutoff: cutoff?.timeIntervalSince1970, maxCount: maxCount, maxBytes: maxSize),
            maxChunks: nil, progress: progress)
    }

    /// One incremental pass of `policy` (at most `maxChunks` chunks), as the sink runs after a batch.
    func applyRetention(_ policy: RetentionPolicy, now: Date = Date(), maxChunks: Int?) throws -> PruneResult {
        try prune(
            limits: Limits(
                cutoff: policy.maxAge.map { now.timeIntervalSince1970 - $0 }, maxCount: policy.maxCount,
                maxBytes: policy.maxTotalBytes),
            maxChunks: maxChunks)
    }

    struct Limits {
        var cutoff: Double?
        var maxCount: Int?
        var maxBytes: Int64?
    }

    private func prune(limits: Limits, maxChunks: Int?, progress: ((PruneResult) -> Void)? = nil) throws -> PruneResult {
        var result = PruneResult()
        result.usedBytesBefore = try queue.sync { db in try usedBytes(db) }
        var chunks = 0
        result.limitsMet = false
        while maxChunks.map({ chunks < $0 }) ?? true {
            // Each chunk is its own queue turn and transaction, so sink batches interleave with a long prune.
            let removed = try queue.sync { db -> (exchanges: Int, bodies: Int)? in
                guard let (limit, cutoff) = try nextChunk(db, limits) else { return nil }
                let removed = try db.inTransaction(.immediate) { try deleteOldest(db, limit: limit, before: cutoff) }
                adjustTrackedCount(by: -removed.exchanges)
                return removed
            }
            guard let removed, removed.exchanges > 0 else {
                result.limitsMet = true
                break
            }
            result.removedExchanges += removed.exchanges
            result.removedBodies += removed.bodies
            chunks += 1
            progress?(result)
        }
        result.usedBytesAfter = try queue.sync { db in
            if result.removedExchanges > 0 { try db.execute("PRAGMA incremental_vacuum") }
            return try usedBytes(db)
        }
        return result
    }

    /// How many of the oldest exchanges to delete next (and below which start time), or nil when
    /// every limit is met.
    private func nextChunk(_ db: Database, _ limits: Limits) throws -> (Int, Double?)? {
        if let cutoff = limits.cutoff,
            try db.scalar("SELECT 1 FROM exchanges WHERE started_at < ? LIMIT 1", [.real(cutoff)]) != nil
        {
            return (Self.pruneChunk, cutoff)
        }
        if let maxCount = limits.maxCount {
            let excess = try trackedCount(db) - maxCount
            if excess > 0 { return (min(excess, Self.pruneChunk), nil) }
        }
        if let maxBytes = limits.maxBytes, try usedBytes(db) > maxBytes, try trackedCount(db) > 0 {
            return (Self.sizePruneChunk, nil)
        }
        return nil
    }

    /// Deletes up to `limit` of the oldest exchanges (started before `cutoff` when given), their
    /// labels, and the bodies no other exchange refers to.
    private func deleteOldest(_ db: Database, limit: Int, before cutoff: Double?) throws -> (exchanges: Int, bodies: Int) {
        let select = try db.cachedStatement(
            cutoff == nil
                ? "SELECT rowid, request_body_id, response_body_id FROM exchanges ORDER BY started_at, rowid LIMIT ?"
                : "SELECT rowid, request_body_id, response_body_id FROM exchanges WHERE started_at < ? ORDER BY started_at, rowid LIMIT ?"
        )
        var victims: [(rowid: Int64, bodies: [Int64])] = []
        let arguments: [DatabaseValue] = (cutoff.map { [DatabaseValue.real($0)] } ?? []) + [.integer(Int64(limit))]
        try select.forEachRow(arguments) { row in
            victims.append((row.int64(at: 0), [row.optionalInt64(at: 1), row.optionalInt64(at: 2)].compactMap { $0 }))
        }
        let writer = try RecordWriter(db: db, recentBodies: recentBodies)
        for victim in victims {
            // The labels table is keyed for filtering (key, value, time, rowid); the row's own JSON names its entries.
            try db.execute(
                """
                DELETE FROM exchange_labels WHERE (key, value, started_at, exchange_rowid) IN
                (SELECT j.key, j.value, e.started_at, e.rowid FROM exchanges e, json_each(e.labels) j WHERE e.rowid = ?)
                """, [.integer(victim.rowid)])
            try db.execute("DELETE FROM exchanges WHERE rowid = ?", [.integer(victim.rowid)])
            for body in victim.bodies { writer.releaseBody(body) }
        }
        return (victims.count, try writer.finish())
    }
}
