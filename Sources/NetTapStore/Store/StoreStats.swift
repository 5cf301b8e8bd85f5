import Foundation

/// The state of a store file, for `nettap stats`.
public struct StoreStats: Sendable, Hashable, Codable {
    public var path: String
    public var schemaVersion: Int
    public var exchangeCount: Int
    /// Distinct stored bodies (identical bodies are kept once).
    public var bodyCount: Int
    /// Body bytes before compression, counted once per distinct body.
    public var bodyBytes: Int64
    /// Body bytes as stored (after compression).
    public var storedBodyBytes: Int64
    /// Bytes of the database pages in use: what size retention measures.
    public var usedBytes: Int64
    /// Size of the database file plus its write-ahead log.
    public var fileBytes: Int64
    public var oldest: Date?
    public var newest: Date?
    /// Events that sinks dropped (oldest first) because the store could not keep up, over the store's life.
    public var droppedEvents: Int64
}

extension ExchangeStore {
    /// Counts and sizes of the store, from one snapshot.
    public func stats() throws -> StoreStats {
        let stats = try queue.read { db in
            let bodies = try db.cachedStatement("SELECT count(*), total(size), total(length(data)) FROM bodies")
            var bodyCount = 0
            var bodyBytes: Int64 = 0
            var storedBodyBytes: Int64 = 0
            try bodies.forEachRow { row in
                bodyCount = row.int(at: 0)
                bodyBytes = row.int64(at: 1)
                storedBodyBytes = row.int64(at: 2)
            }
            var oldest: Date?
            var newest: Date?
            // min and max each walk the time index from one end; started_ref holds the exact date.
            if let first = try db.scalar("SELECT started_ref FROM exchanges ORDER BY started_at ASC, rowid ASC LIMIT 1") {
                oldest = first.double.map(Date.init(timeIntervalSinceReferenceDate:))
            }
            if let last = try db.scalar("SELECT started_ref FROM exchanges ORDER BY started_at DESC, rowid DESC LIMIT 1") {
                newest = last.double.map(Date.init(timeIntervalSinceReferenceDate:))
            }
            return StoreStats(
                path: path, schemaVersion: try DatabaseMigrator.version(of: db),
                exchangeCount: Int(try db.int64("SELECT count(*) FROM exchanges")),
                bodyCount: bodyCount, bodyBytes: bodyBytes, storedBodyBytes: storedBodyBytes,
                usedBytes: try usedBytes(db), fileBytes: 0, oldest: oldest, newest: newest,
                droppedEvents: try db.scalar("SELECT value FROM meta WHERE key = 'dropped_events'")?.int64 ?? 0)
        }
        var result = stats
        result.fileBytes = [path, path + "-wal"].reduce(Int64(0)) { total, file in
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.int64Value
            return total + (size ?? 0)
        }
        return result
    }

    /// Bytes of the pages in use (file pages minus free pages).
    func usedBytes(_ db: Database) throws -> Int64 {
        let pages = try db.int64("PRAGMA page_count")
        let free = try db.int64("PRAGMA freelist_count")
        let size = try db.int64("PRAGMA page_size")
        return (pages - free) * size
    }
}
