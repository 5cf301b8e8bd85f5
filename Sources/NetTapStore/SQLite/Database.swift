import CSQLite
import Foundation

/// One SQLite connection. It is not thread-safe on purpose (opened with `SQLITE_OPEN_NOMUTEX`):
/// a `DatabaseQueue` owns it and hands it only to closures running on the queue.
///
/// ```swift
/// let queue = try DatabaseQueue(path: "/tmp/demo.sqlite")
/// try queue.write { db in
///     try db.execute("CREATE TABLE IF NOT EXISTS t(a INTEGER)")
///     try db.cachedStatement("INSERT INTO t(a) VALUES (?)").execute([.integer(1)])
/// }
/// ```
public final class Database {
    let handle: OpaquePointer
    /// The file path of the database.
    public let path: String
    private var statementCache: [String: Statement] = [:]
    /// Keeps the closure given to `setCommitHook` alive for as long as SQLite may call it.
    private var commitHook: CommitHook?

    /// How a transaction takes its locks.
    public enum TransactionKind: String, Sendable {
        /// Takes the write lock on the first write.
        case deferred = "DEFERRED"
        /// Takes the write lock at once, so a busy database fails early rather than at commit.
        case immediate = "IMMEDIATE"
    }

    init(path: String, flags: Int32, busyTimeout: TimeInterval) throws {
        var connection: OpaquePointer?
        let code = sqlite3_open_v2(path, &connection, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let connection else {
            let error = DatabaseError.last(on: connection, code: code, sql: nil)
            sqlite3_close_v2(connection)
            throw DatabaseError(
                extendedResultCode: error.extendedResultCode,
                message: "cannot open database at \(path): \(error.message)")
        }
        self.handle = connection
        self.path = path
        sqlite3_extended_result_codes(connection, 1)
        let milliseconds = Int32(clamping: Int64((busyTimeout * 1000).rounded()))
        sqlite3_busy_timeout(connection, milliseconds)
    }

    deinit {
        statementCache.removeAll()
        // close_v2 waits for any statement still alive to be finalized before it frees the connection.
        sqlite3_close_v2(handle)
    }

    // MARK: Statements

    /// Prepares a statement that the caller owns.
    public func prepare(_ sql: String) throws -> Statement {
        try Statement(database: self, sql: sql)
    }

    /// A statement prepared once per connection and kept for reuse; for SQL that runs often.
    public func cachedStatement(_ sql: String) throws -> Statement {
        if let statement = statementCache[sql] { return statement }
        let statement = try Statement(database: self, sql: sql, persistent: true)
        statementCache[sql] = statement
        return statement
    }

    /// Runs SQL that may hold several statements separated by semicolons, without arguments.
    public func execute(_ sql: String) throws {
        var remaining = Substring(sql)
        while true {
            let (statementSQL, rest) = Self.splitFirstStatement(remaining)
            if statementSQL.allSatisfy(\.isWhitespace) { break }
            try prepare(statementSQL).execute()
            remaining = rest
        }
    }

    /// Runs one statement with arguments.
    public func execute(_ sql: String, _ arguments: [DatabaseValue]) throws {
        try cachedStatement(sql).execute(arguments)
    }

    /// The first column of the first row of a query, or nil.
    public func scalar(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> DatabaseValue? {
        try cachedStatement(sql).scalar(arguments)
    }

    /// The first column of the first row as an integer; throws when there is none.
    public func int64(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> Int64 {
        guard let value = try scalar(sql, arguments)?.int64 else {
            throw DatabaseError(extendedResultCode: SQLITE_MISMATCH, message: "query returned no integer", sql: sql)
        }
        return value
    }

    // MARK: Transactions

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    public func inTransaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        try cachedStatement("BEGIN \(kind.rawValue) TRANSACTION").execute()
        let result: T
        do {
            result = try body()
        } catch {
            rollbackIgnoringErrors()
            throw error
        }
        do {
            try cachedStatement("COMMIT TRANSACTION").execute()
        } catch {
            rollbackIgnoringErrors()
            throw error
        }
        return result
    }

    /// True while a transaction is open on this connection.
    public var isInTransaction: Bool {
        sqlite3_get_autocommit(handle) == 0
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int {
        Int(sqlite3_changes64(handle))
    }

    /// The rowid of the last row inserted on this connection.
    public var lastInsertRowID: Int64 {
        sqlite3_last_insert_rowid(handle)
    }

    // MARK: Pragmas

    /// Reads a pragma that returns one value.
    public func pragma(_ name: String) throws -> DatabaseValue? {
        try prepare("PRAGMA \(name)").scalar()
    }

    /// Sets the journal mode and checks that SQLite really switched (it silently keeps the old mode
    /// on file systems without shared memory, and for in-memory databases).
    public func setJournalMode(_ mode: String) throws {
        let reported = try prepare("PRAGMA journal_mode = \(mode)").scalar()?.text?.lowercased()
        let current = try pragma("journal_mode")?.text?.lowercased()
        guard reported == mode.lowercased(), current == mode.lowercased() else {
            throw DatabaseError(
                extendedResultCode: SQLITE_ERROR,
                message: "journal_mode is \(current ?? "unknown") after asking for \(mode) (file: \(path))",
                sql: "PRAGMA journal_mode = \(mode)")
        }
    }

    // MARK: WAL

    /// Calls `body` after every commit on this connection with the number of frames then in the
    /// WAL, instead of SQLite's automatic checkpoint (which is this same hook: setting one turns
    /// `wal_autocheckpoint` off). `body` runs inside the commit, on the connection's queue, and
    /// may checkpoint through `checkpointPassive()`. Nil restores no hook at all.
    public func setCommitHook(_ body: ((Database, Int) -> Void)?) {
        guard let body else {
            sqlite3_wal_hook(handle, nil, nil)
            commitHook = nil
            return
        }
        let hook = CommitHook(database: self, body: body)
        commitHook = hook
        sqlite3_wal_hook(handle, { context, _, _, frames in
            guard let context else { return SQLITE_OK }
            let hook = Unmanaged<CommitHook>.fromOpaque(context).takeUnretainedValue()
            if let database = hook.database { hook.body(database, Int(frames)) }
            return SQLITE_OK
        }, Unmanaged.passUnretained(hook).toOpaque())
    }

    /// Copies what it can of the WAL into the database file without waiting for readers or
    /// writers (`SQLITE_CHECKPOINT_PASSIVE`). Returns the frames in the WAL and those copied.
    @discardableResult
    public func checkpointPassive() throws -> (walFrames: Int, checkpointed: Int) {
        var log: Int32 = 0
        var copied: Int32 = 0
        let code = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &log, &copied)
        guard code == SQLITE_OK else {
            throw DatabaseError.last(on: handle, code: code, sql: "PRAGMA wal_checkpoint(PASSIVE)")
        }
        return (Int(log), Int(copied))
    }

    private final class CommitHook {
        weak var database: Database?
        let body: (Database, Int) -> Void
        init(database: Database, body: @escaping (Database, Int) -> Void) {
            self.database = database
            self.body = body
        }
    }

    // MARK: Private

    private func rollbackIgnoringErrors() {
        // A failed statement can already have rolled the transaction back (e.g. SQLITE_FULL).
        guard isInTransaction else { return }
        try? cachedStatement("ROLLBACK TRANSACTION").execute()
    }

    /// Splits off the first complete statement using SQLite's own notion of completeness,
    /// so that semicolons inside strings or triggers are kept.
    private static func splitFirstStatement(_ sql: Substring) -> (String, Substring) {
        var index = sql.startIndex
        while index < sql.endIndex {
            if sql[index] == ";" {
                let candidate = String(sql[sql.startIndex ... index])
                if sqlite3_complete(candidate) != 0 {
                    return (candidate, sql[sql.index(after: index)...])
                }
            }
            index = sql.index(after: index)
        }
        return (String(sql), sql[sql.endIndex...])
    }
}
