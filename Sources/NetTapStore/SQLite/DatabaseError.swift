import CSQLite

/// A failure reported by SQLite: its extended result code, its message and the SQL that failed.
///
/// The description names the statement but never the values bound to it: those can be captured
/// request data (tokens, bodies), which must not leak into logs.
///
/// ```swift
/// do { try db.execute("INSERT INTO t VALUES (1)") }
/// catch let error as DatabaseError where error.resultCode == SQLITE_CONSTRAINT { ... }
/// ```
public struct DatabaseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, `SQLITE_IOERR_WRITE`, ...).
    public var extendedResultCode: Int32
    /// What SQLite said, or what the wrapper checked.
    public var message: String
    /// The SQL that failed, when there was one.
    public var sql: String?

    public init(extendedResultCode: Int32, message: String, sql: String? = nil) {
        self.extendedResultCode = extendedResultCode
        self.message = message
        self.sql = sql
    }

    /// `SQLITE_CONSTRAINT_UNIQUE`, which the C header defines as a macro Swift does not import.
    public static let constraintUnique: Int32 = SQLITE_CONSTRAINT | (8 << 8)

    /// The primary result code (`SQLITE_CONSTRAINT`, `SQLITE_BUSY`, ...): the low byte of the extended one.
    public var resultCode: Int32 { extendedResultCode & 0xff }

    /// SQLite's English name for the code ("constraint failed", "database is locked").
    public var codeDescription: String {
        String(cString: sqlite3_errstr(extendedResultCode))
    }

    public var description: String {
        var text = "SQLite error \(extendedResultCode) (\(codeDescription)): \(message)"
        if let sql { text += " — in SQL: \(sql)" }
        return text
    }

    /// The error SQLite reports for `connection` right now.
    static func last(on connection: OpaquePointer?, code: Int32, sql: String?) -> DatabaseError {
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
        // The connection's code can be stale when `code` came from a call that does not set it.
        let useExtended = extended & 0xff == code & 0xff ? extended : code
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        return DatabaseError(extendedResultCode: useExtended, message: message, sql: sql)
    }
}
