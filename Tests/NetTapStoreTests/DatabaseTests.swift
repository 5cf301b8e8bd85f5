import CSQLite
import Foundation
import Testing

@testable import NetTapStore

@Suite("SQLite wrapper: DatabaseQueue, Database, Statement, DatabaseError")
struct DatabaseTests {
    @Test("WAL is really on, read back from the file by a second connection")
    func walIsOn() throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.storePath)
        #expect(try queue.sync { db in try db.pragma("journal_mode")?.text } == "wal")
        #expect(try queue.sync { db in try db.pragma("synchronous")?.int64 } == 1)  // NORMAL
        // WAL is persistent: another connection sees it without asking.
        let other = try DatabaseQueue(path: directory.storePath)
        #expect(try other.sync { db in try db.pragma("journal_mode")?.text } == "wal")
        try queue.write { db in try db.execute("CREATE TABLE t(a)") }
        #expect(FileManager.default.fileExists(atPath: directory.storePath + "-wal"))
    }

    @Test("an error carries the extended code, SQLite's message and the SQL, never the bound values")
    func errorContents() throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.storePath)
        try queue.write { db in try db.execute("CREATE TABLE t(a TEXT UNIQUE NOT NULL)") }
        let secret = "Bearer s3cr3t-token"
        try queue.write { db in try db.execute("INSERT INTO t(a) VALUES (?)", [.text(secret)]) }
        let error = try #require(throws: DatabaseError.self) {
            try queue.write { db in try db.execute("INSERT INTO t(a) VALUES (?)", [.text(secret)]) }
        }
        #expect(error.resultCode == SQLITE_CONSTRAINT)
        #expect(error.extendedResultCode == DatabaseError.constraintUnique)
        #expect(error.message == "UNIQUE constraint failed: t.a")
        #expect(error.sql == "INSERT INTO t(a) VALUES (?)")
        #expect(error.description.contains("UNIQUE constraint failed: t.a"))
        #expect(error.description.contains("INSERT INTO t(a) VALUES (?)"))
        #expect(!error.description.contains(secret))
        #expect(!String(reflecting: error).contains(secret))
    }

    @Test("a syntax error names the SQL; a second statement in prepare is refused")
    func prepareErrors() throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.storePath)
        let syntax = try #require(throws: DatabaseError.self) {
            try queue.sync { db in _ = try db.prepare("SELEKT 1") }
        }
        #expect(syntax.resultCode == SQLITE_ERROR)
        #expect(syntax.message.contains("syntax error"))
        #expect(syntax.sql == "SELEKT 1")
        let two = try #require(throws: DatabaseError.self) {
            try queue.sync { db in _ = try db.prepare("SELECT 1; SELECT 2") }
        }
        #expect(two.message.contains("more than one statement"))
        let arity = try #require(throws: DatabaseError.self) {
            try queue.sync { db in try db.execute("SELECT ?, ?", [.integer(1)]) }
        }
        #expect(arity.resultCode == SQLITE_RANGE)
        #expect(arity.message == "statement takes 2 arguments, 1 given")
    }

    @Test("execute runs several statements, keeping semicolons inside strings")
    func multipleStatements() throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.storePath)
        let values = try queue.sync { db -> [String] in
            try db.execute("CREATE TABLE t(a TEXT); INSERT INTO t VALUES ('x;y'); INSERT INTO t VALUES ('z');  ")
            var values: [String] = []
            try db.prepare("SELECT a FROM t ORDER BY rowid").forEachRow { values.append($0.string(at: 0) ?? "") }
            return values
        }
        #expect(values == ["x;y", "z"])
    }

    @Test("a transaction that throws is rolled back, and the connection stays usable")
    func rollbackOnThrow() throws {
        struct Abort: Error {}
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.storePath)
        try queue.write { db in try db.execute("CREATE TABLE t(a INTEGER)") }
        #expect(throws: Abort.self) {
            try queue.write { db in
                try db.execute("INSERT INTO t(a) VALUES (?)", [.integer(1)])
                try db.execute("INSERT INTO t(a) VALUES (?)", [.integer(2)])
                throw Abort()
            }
        }
        #expect(queue.sync { db in db.isInTransaction } == false)
        #expect(try queue.read { db in try db.int64("SELECT count(*) FROM t") } == 0)
        try queue.write { db in try db.execute("INSERT INTO t(a) VALUES (?)", [.integer(3)]) }
        #expect(try queue.read { db in try db.int64("SELECT sum(a) FROM t") } == 3)
        // A failing statement inside the transaction rolls back the earlier ones too.
        #expect(throws: DatabaseError.self) {
            try queue.write { db in
                try db.execute("INSERT INTO t(a) VALUES (?)", [.integer(4)])
                try db.execute("INSERT INTO missing(a) VALUES (1)")
            }
        }
        #expect(try queue.read { db in try db.int64("SELECT count(*) FROM t") } == 1)
    }

    @Test("values of every storage class bind and read back, including empty text and blobs")
    func bindAndRead() throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.storePath)
        let values: [DatabaseValue] = [
            .null, .integer(Int64.min), .integer(Int64.max), .real(-0.1), .real(1e300), .text(""), .text("a\u{0}b ✓"),
            .blob(Data()), .blob(Data([0, 0xff, 0])),
        ]
        let readBack = try queue.sync { db -> [DatabaseValue] in
            try db.execute("CREATE TABLE t(v)")
            for value in values { try db.execute("INSERT INTO t(v) VALUES (?)", [value]) }
            var out: [DatabaseValue] = []
            try db.prepare("SELECT v FROM t ORDER BY rowid").forEachRow { out.append($0.value(at: 0)) }
            return out
        }
        #expect(readBack == values)
    }

    @Test("sync is re-entrant and async work runs on the queue in order")
    func queueDiscipline() async throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.storePath)
        let nested = try queue.sync { _ in try queue.sync { db in try db.int64("SELECT 41 + 1") } }
        #expect(nested == 42)
        try queue.write { db in try db.execute("CREATE TABLE t(a)") }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            for value in 0 ..< 10 {
                queue.async { db in try? db.execute("INSERT INTO t(a) VALUES (?)", [.integer(Int64(value))]) }
            }
            queue.async { _ in done.resume() }
        }
        let order = try queue.sync { db -> [Int64] in
            var values: [Int64] = []
            try db.prepare("SELECT a FROM t ORDER BY rowid").forEachRow { values.append($0.int64(at: 0)) }
            return values
        }
        #expect(order == Array(0 ..< 10))
    }

    @Test("opening a missing file without create fails with a message naming the path")
    func missingFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("absent.sqlite")
        let error = try #require(throws: DatabaseError.self) {
            _ = try DatabaseQueue(path: path, configuration: .init(createIfMissing: false))
        }
        #expect(error.resultCode == SQLITE_CANTOPEN)
        #expect(error.message.contains(path))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("a file that is not a database is reported, not trapped on")
    func notADatabase() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("garbage.sqlite")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: DatabaseError.self) { _ = try ExchangeStore(path: path) }
        #expect(error.resultCode == SQLITE_NOTADB)
    }

    @Test("a write lock held by another connection makes a write fail with SQLITE_BUSY after the timeout")
    func busyTimeout() throws {
        let directory = try TemporaryDirectory()
        let holder = try DatabaseQueue(path: directory.storePath)
        try holder.write { db in try db.execute("CREATE TABLE t(a)") }
        let waiter = try DatabaseQueue(path: directory.storePath, configuration: .init(busyTimeout: 0.05))
        let error = try holder.sync { db -> DatabaseError? in
            try db.inTransaction(.immediate) {
                try db.execute("INSERT INTO t(a) VALUES (1)")
                do {
                    try waiter.write { other in try other.execute("INSERT INTO t(a) VALUES (2)") }
                    return nil
                } catch let error as DatabaseError {
                    return error
                }
            }
        }
        let busy = try #require(error)
        #expect(busy.resultCode == SQLITE_BUSY)
        #expect(try waiter.read { db in try db.int64("SELECT count(*) FROM t") } == 1)
    }
}
