import CSQLite
import Foundation

/// One prepared SQL statement: prepared in a throwing init, finalized in deinit.
///
/// Parameters are 1-based, columns 0-based, as in SQLite. A statement belongs to the connection
/// that prepared it and is used on that connection's queue only.
///
/// ```swift
/// let insert = try db.prepare("INSERT INTO t(a, b) VALUES (?, ?)")
/// try insert.execute([.integer(1), .text("one")])
/// ```
public final class Statement {
    let handle: OpaquePointer
    /// The SQL text, for error messages.
    public let sql: String

    /// Prepares one statement. SQL that holds more than one statement is an error (use `Database.execute`).
    public init(database: Database, sql: String, persistent: Bool = false) throws {
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let code = sql.withCString { text in
            sqlite3_prepare_v3(database.handle, text, -1, flags, &statement, &tail)
        }
        guard code == SQLITE_OK else {
            throw DatabaseError.last(on: database.handle, code: code, sql: sql)
        }
        guard let statement else {
            throw DatabaseError(extendedResultCode: SQLITE_MISUSE, message: "no statement in SQL", sql: sql)
        }
        if let tail, tail.pointee != 0, !String(cString: tail).allSatisfy(\.isWhitespace) {
            sqlite3_finalize(statement)
            throw DatabaseError(
                extendedResultCode: SQLITE_MISUSE, message: "more than one statement; use Database.execute", sql: sql)
        }
        self.handle = statement
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    // MARK: Running

    /// Advances to the next row: true when a row is available, false when the statement is done.
    @discardableResult
    public func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = DatabaseError.last(on: sqlite3_db_handle(handle), code: code, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Resets the statement so it can run again and releases what it holds (locks, bound values).
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds `arguments` (after a reset) and runs the statement to completion.
    public func execute(_ arguments: [DatabaseValue] = []) throws {
        reset()
        defer { reset() }
        try bind(arguments)
        while try step() {}
    }

    /// Binds `arguments` (after a reset) and calls `body` for each row; resets when done.
    public func forEachRow(_ arguments: [DatabaseValue] = [], _ body: (Statement) throws -> Void) throws {
        reset()
        defer { reset() }
        try bind(arguments)
        while try step() {
            try body(self)
        }
    }

    /// The first column of the first row, or nil when there is no row or it is NULL.
    public func scalar(_ arguments: [DatabaseValue] = []) throws -> DatabaseValue? {
        reset()
        defer { reset() }
        try bind(arguments)
        guard try step() else { return nil }
        let value = self.value(at: 0)
        return value == .null ? nil : value
    }

    // MARK: Binding

    /// Binds values to parameters 1, 2, ...
    public func bind(_ arguments: [DatabaseValue]) throws {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard arguments.count == expected else {
            throw DatabaseError(
                extendedResultCode: SQLITE_RANGE,
                message: "statement takes \(expected) arguments, \(arguments.count) given", sql: sql)
        }
        for (offset, value) in arguments.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    public func bind(_ value: DatabaseValue, at index: Int32) throws {
        switch value {
        case .null: try check(sqlite3_bind_null(handle, index))
        case .integer(let integer): try bind(integer, at: index)
        case .real(let real): try bind(real, at: index)
        case .text(let text): try bind(text, at: index)
        case .blob(let data): try bind(data, at: index)
        }
    }

    public func bind(_ value: Int64?, at index: Int32) throws {
        guard let value else { return try check(sqlite3_bind_null(handle, index)) }
        try check(sqlite3_bind_int64(handle, index, value))
    }

    public func bind(_ value: Int?, at index: Int32) throws {
        try bind(value.map(Int64.init), at: index)
    }

    public func bind(_ value: Double?, at index: Int32) throws {
        guard let value else { return try check(sqlite3_bind_null(handle, index)) }
        try check(sqlite3_bind_double(handle, index, value))
    }

    public func bind(_ value: String?, at index: Int32) throws {
        guard var value else { return try check(sqlite3_bind_null(handle, index)) }
        let code = value.withUTF8 { bytes -> Int32 in
            // An empty buffer may have no address, which SQLite would read as NULL.
            guard let base = bytes.baseAddress, bytes.count > 0 else {
                return sqlite3_bind_text(handle, index, "", 0, nil)
            }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { text in
                sqlite3_bind_text64(
                    handle, index, text, sqlite3_uint64(bytes.count), Self.transient, UInt8(SQLITE_UTF8))
            }
        }
        try check(code)
    }

    /// Binds UTF-8 text that SQLite reads in place (SQLITE_STATIC) instead of copying: the bytes
    /// must stay valid and unchanged until the statement is reset (`reset()` clears bindings).
    /// Nil binds NULL. For buffers whose lifetime the caller controls, such as `ColumnBytes`.
    func bind(unsafeText text: UnsafeRawBufferPointer?, at index: Int32) throws {
        guard let text else { return try check(sqlite3_bind_null(handle, index)) }
        guard let base = text.baseAddress, text.count > 0 else {
            return try check(sqlite3_bind_text(handle, index, "", 0, nil))
        }
        try check(sqlite3_bind_text64(
            handle, index, base.assumingMemoryBound(to: CChar.self), sqlite3_uint64(text.count), nil, UInt8(SQLITE_UTF8)))
    }

    public func bind(_ value: Data?, at index: Int32) throws {
        guard let value else { return try check(sqlite3_bind_null(handle, index)) }
        try bind(bytes: value, at: index)
    }

    public func bind(bytes value: some ContiguousBytes, at index: Int32) throws {
        let code = value.withUnsafeBytes { bytes -> Int32 in
            guard let base = bytes.baseAddress, bytes.count > 0 else {
                return sqlite3_bind_zeroblob(handle, index, 0)
            }
            return sqlite3_bind_blob64(handle, index, base, sqlite3_uint64(bytes.count), Self.transient)
        }
        try check(code)
    }

    public func bind(_ value: Bool, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, value ? 1 : 0))
    }

    // MARK: Columns

    public var columnCount: Int32 { sqlite3_column_count(handle) }

    public func isNull(at column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    public func int64(at column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    public func int(at column: Int32) -> Int {
        Int(sqlite3_column_int64(handle, column))
    }

    public func double(at column: Int32) -> Double {
        sqlite3_column_double(handle, column)
    }

    public func optionalInt64(at column: Int32) -> Int64? {
        isNull(at: column) ? nil : int64(at: column)
    }

    public func optionalDouble(at column: Int32) -> Double? {
        isNull(at: column) ? nil : double(at: column)
    }

    /// The column as UTF-8 text, or nil when NULL.
    public func string(at column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The column as bytes, or nil when NULL.
    public func data(at column: Int32) -> Data? {
        if isNull(at: column) { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    /// The column as a `DatabaseValue`, keeping SQLite's storage class.
    public func value(at column: Int32) -> DatabaseValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(int64(at: column))
        case SQLITE_FLOAT: return .real(double(at: column))
        case SQLITE_TEXT: return .text(string(at: column) ?? "")
        case SQLITE_BLOB: return .blob(data(at: column) ?? Data())
        default: return .null
        }
    }

    // MARK: Private

    /// SQLite copies the bytes during the call; Swift buffers do not outlive it.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else {
            throw DatabaseError.last(on: sqlite3_db_handle(handle), code: code, sql: sql)
        }
    }
}
