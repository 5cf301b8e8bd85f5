import Foundation
import NetTapCore

/// Captured exchanges kept in a SQLite file that people can also query with the `sqlite3` shell
/// (docs/schema.md).
///
/// All work runs on the store's own serial queue; every method is synchronous and may be called
/// from any thread. Live capture writes through a `StoreSink`; imports use `insert(_:)`.
///
/// ```swift
/// let store = try ExchangeStore(path: StoreLocation.resolve(option: nil))
/// try store.insert(exchanges)                                   // one transaction, all or nothing
/// var filter = ExchangeFilter()
/// filter.host = "api.example.com"
/// filter.statusRange = 500 ... 599
/// let page = try store.exchanges(matching: filter, limit: 100)  // newest first
/// let next = try store.exchanges(matching: filter, limit: 100, after: page.nextCursor)
/// try store.forEach(matching: filter) { exchange in /* export one at a time */ }
/// ```
public final class ExchangeStore: Sendable {
    /// Options of a store.
    public struct Configuration: Sendable {
        /// Create the file when it does not exist. Read-only tools pass false to get `storeNotFound`.
        public var createIfMissing: Bool
        /// How long to wait for another process's write lock.
        public var busyTimeout: TimeInterval
        /// Bodies larger than this many bytes are compressed with zlib.
        public var compressionThreshold: Int
        /// SQLite's page cache for this connection, in KiB.
        public var cacheSizeKiB: Int
        /// Copy the WAL into the file on a second connection and thread (`BackgroundCheckpointer`)
        /// rather than inside the commit that fills it, so that writes never stall for it.
        public var checkpointsInBackground: Bool
        /// How many distinct recent bodies the store remembers (about 40 bytes each) to store
        /// bytes it sees again only once (`RecentBodies`); 0 stores every body anew.
        public var deduplicationWindow: Int

        public init(
            createIfMissing: Bool = true, busyTimeout: TimeInterval = 5, compressionThreshold: Int = 1024,
            cacheSizeKiB: Int = 16 * 1024, checkpointsInBackground: Bool = true, deduplicationWindow: Int = 65_536
        ) {
            self.createIfMissing = createIfMissing
            self.busyTimeout = busyTimeout
            self.compressionThreshold = compressionThreshold
            self.cacheSizeKiB = max(0, cacheSizeKiB)
            self.checkpointsInBackground = checkpointsInBackground
            self.deduplicationWindow = max(0, deduplicationWindow)
        }
    }

    /// The file path of the store.
    public let path: String
    public let configuration: Configuration
    let queue: DatabaseQueue
    /// Nil when checkpoints run inside commits (`Configuration.checkpointsInBackground` false).
    let checkpointer: BackgroundCheckpointer?
    /// What the store knows about itself between calls; read and written on `queue` only.
    let tracker = Protected(Tracker())
    /// The bodies this store wrote most recently; used by `RecordWriter` on `queue` only.
    let recentBodies: Protected<RecentBodies>

    struct Tracker {
        /// Exchanges in the file, as last counted plus what this connection did since.
        var count: Int?
        /// `PRAGMA data_version` when `count` was right: another process's commit changes it.
        var dataVersion: Int64 = -1
    }

    /// Opens (and creates, unless told not to) the store at `path`, migrating its schema.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        if !configuration.createIfMissing, !FileManager.default.fileExists(atPath: path) {
            throw ExchangeStoreError.storeNotFound(path: path)
        }
        self.path = path
        self.configuration = configuration
        recentBodies = Protected(RecentBodies(capacity: configuration.deduplicationWindow))
        queue = try DatabaseQueue(
            path: path,
            configuration: DatabaseQueue.Configuration(
                createIfMissing: configuration.createIfMissing, busyTimeout: configuration.busyTimeout,
                label: "NetTap.ExchangeStore",
                prepareDatabase: { db in
                    // Both only possible on a new file, before WAL is on. Incremental vacuum lets
                    // retention give space back to the file system. 16 KiB pages (SQLite's default
                    // is 4 KiB): a row is about 1.2 KiB of columns and header JSON, and larger
                    // pages mean fewer page splits, WAL frames and checkpoint copies per row;
                    // measured with the benchmark's rows, ingest took about 30 % less CPU per
                    // exchange (BENCHMARKS.md). Files made with 4 KiB pages keep them.
                    if try db.int64("PRAGMA page_count") == 0 {
                        try db.execute("PRAGMA page_size = \(Self.pageSize)")
                        try db.execute("PRAGMA auto_vacuum = INCREMENTAL")
                    }
                }))
        let checkpointPages = try queue.sync { db -> Int in
            // Off before migrating: a migration that rebuilds a table drops the old one.
            try db.execute("PRAGMA foreign_keys = OFF")
            try StoreSchema.migrator.migrate(db)
            // Measured with nettap-bench store: a 16 MiB page cache keeps the indexes' hot pages,
            // and checkpointing after 16 MiB of WAL (SQLite's default is 1000 pages) copies
            // pages that batches rewrite often once rather than several times. The WAL file is
            // truncated back to 64 MiB at most after a checkpoint.
            let pages = Self.checkpointBytes / max(512, Int(try db.int64("PRAGMA page_size")))
            try db.execute("PRAGMA cache_size = -\(configuration.cacheSizeKiB)")
            try db.execute("PRAGMA wal_autocheckpoint = \(pages)")
            try db.execute("PRAGMA journal_size_limit = \(64 << 20)")
            return pages
        }
        if configuration.checkpointsInBackground {
            let checkpointer = try BackgroundCheckpointer(
                path: path, busyTimeout: configuration.busyTimeout, threshold: checkpointPages)
            self.checkpointer = checkpointer
            queue.sync { db in
                db.setCommitHook { writer, frames in checkpointer.commit(walFrames: frames, on: writer) }
            }
        } else {
            checkpointer = nil
        }
    }

    /// The page size of files this store creates.
    static var pageSize: Int { 16_384 }

    /// WAL bytes after which a checkpoint copies them into the file.
    static var checkpointBytes: Int { 16 << 20 }

    /// The schema version this build writes.
    public static var schemaVersion: Int { StoreSchema.migrator.latestVersion }

    /// Runs `body` with the store's connection on its queue, for tools and tests that need raw SQL.
    public func withDatabase<T>(_ body: (Database) throws -> T) rethrows -> T {
        try queue.sync(body)
    }

    /// Writes the WAL into the main file and truncates it (for shutdown or before copying the file).
    public func checkpoint() throws {
        checkpointer?.wait()
        try queue.sync { db in try db.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    // MARK: Counting (on the queue)

    /// The exchange count, recounted only when another connection has written since.
    func trackedCount(_ db: Database) throws -> Int {
        let version = try db.int64("PRAGMA data_version")
        let known = tracker.withLock { state -> Int? in
            state.dataVersion == version ? state.count : nil
        }
        if let known { return known }
        let count = Int(try db.int64("SELECT count(*) FROM exchanges"))
        tracker.withLock { state in
            state.count = count
            state.dataVersion = version
        }
        return count
    }

    /// Records a change this connection made (its own commits do not change `data_version`).
    func adjustTrackedCount(by delta: Int) {
        tracker.withLock { state in
            if let count = state.count { state.count = count + delta }
        }
    }
}
