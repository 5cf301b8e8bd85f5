import CSQLite
import Foundation

/// The owner of one SQLite connection: every access runs on its serial dispatch queue.
///
/// Opens the file with `SQLITE_OPEN_NOMUTEX` (the queue is the mutex), a busy timeout, WAL mode
/// checked to be really on, and `synchronous = NORMAL` (in WAL mode a commit survives a crash of
/// the process; only a power cut can lose the last transactions).
///
/// ```swift
/// let queue = try DatabaseQueue(path: "/tmp/demo.sqlite")
/// let count = try queue.read { db in try db.int64("SELECT count(*) FROM sqlite_schema") }
/// ```
public final class DatabaseQueue: @unchecked Sendable {
    /// Options of a connection.
    public struct Configuration: Sendable {
        /// Create the file when it does not exist. Default true.
        public var createIfMissing = true
        /// How long a statement waits for another connection's lock before failing with SQLITE_BUSY.
        public var busyTimeout: TimeInterval = 5
        /// A label for the dispatch queue (shows in crash logs and debuggers).
        public var label = "NetTap.DatabaseQueue"
        /// Runs first on the new connection, before WAL is switched on: some settings, such as
        /// `auto_vacuum`, can only be chosen on a new file before anything else writes to it.
        public var prepareDatabase: (@Sendable (Database) throws -> Void)?

        public init(
            createIfMissing: Bool = true, busyTimeout: TimeInterval = 5, label: String = "NetTap.DatabaseQueue",
            prepareDatabase: (@Sendable (Database) throws -> Void)? = nil
        ) {
            self.createIfMissing = createIfMissing
            self.busyTimeout = busyTimeout
            self.label = label
            self.prepareDatabase = prepareDatabase
        }
    }

    public let path: String
    let queue: DispatchQueue
    private let queueKey = DispatchSpecificKey<ObjectIdentifier>()
    // Touched only on `queue`: that is what makes this class safe to share.
    private let database: Database

    public init(path: String, configuration: Configuration = Configuration()) throws {
        self.path = path
        queue = DispatchQueue(label: configuration.label, qos: .utility)
        var flags = SQLITE_OPEN_READWRITE
        if configuration.createIfMissing { flags |= SQLITE_OPEN_CREATE }
        database = try Database(path: path, flags: flags, busyTimeout: configuration.busyTimeout)
        queue.setSpecific(key: queueKey, value: ObjectIdentifier(self))
        try sync { db in
            try configuration.prepareDatabase?(db)
            try db.setJournalMode("wal")
            try db.execute("PRAGMA synchronous = NORMAL")
        }
    }

    /// Runs `body` on the queue and waits for it. Re-entrant: called from the queue, it runs at once.
    public func sync<T>(_ body: (Database) throws -> T) rethrows -> T {
        if DispatchQueue.getSpecific(key: queueKey) == ObjectIdentifier(self) {
            return try body(database)
        }
        return try queue.sync { try body(database) }
    }

    /// Runs `body` in an immediate transaction on the queue: committed when it returns, rolled back when it throws.
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        try sync { db in try db.inTransaction(.immediate) { try body(db) } }
    }

    /// Runs `body` in a deferred (read) transaction so that every query sees the same snapshot.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try sync { db in
            if db.isInTransaction { return try body(db) }
            return try db.inTransaction(.deferred) { try body(db) }
        }
    }

    /// Schedules `body` on the queue without waiting.
    public func async(_ body: @escaping @Sendable (Database) -> Void) {
        queue.async { [self] in body(self.database) }
    }
}
