import CSQLite
import Foundation
import NetTapCore
import Testing

@testable import NetTapStore

@Suite("DatabaseMigrator")
struct DatabaseMigratorTests {
    private func migrator(steps: Int, log: Protected<[String]>) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for step in 1 ... steps {
            migrator.register("step \(step)") { db in
                log.withLock { $0.append("step \(step)") }
                try db.execute("CREATE TABLE t\(step)(a)")
            }
        }
        return migrator
    }

    @Test("steps run once, in order, and user_version follows; running again does nothing")
    func idempotent() throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.storePath)
        let log = Protected<[String]>([])
        let two = migrator(steps: 2, log: log)
        #expect(try queue.sync { db in try two.migrate(db) } == ["step 1", "step 2"])
        #expect(try queue.sync { db in try two.migrate(db) } == [])
        #expect(try queue.sync { db in try DatabaseMigrator.version(of: db) } == 2)
        // A later build adds a step: only that one runs.
        let three = migrator(steps: 3, log: log)
        #expect(try queue.sync { db in try three.migrate(db) } == ["step 3"])
        #expect(log.current == ["step 1", "step 2", "step 3"])
        #expect(try queue.sync { db in try DatabaseMigrator.version(of: db) } == 3)
    }

    @Test("a failing step leaves the schema and version as they were before it")
    func failingStep() throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.storePath)
        var migrator = DatabaseMigrator()
        migrator.register("good") { db in try db.execute("CREATE TABLE good(a)") }
        migrator.register("bad") { db in
            try db.execute("CREATE TABLE half(a)")
            try db.execute("CREATE TABLE good(a)")  // already exists
        }
        let error = try #require(throws: DatabaseError.self) { try queue.sync { db in try migrator.migrate(db) } }
        #expect(error.message.contains("already exists"))
        #expect(try queue.sync { db in try DatabaseMigrator.version(of: db) } == 1)
        let tables = try queue.sync { db in
            try db.int64("SELECT count(*) FROM sqlite_schema WHERE name IN ('good', 'half')")
        }
        #expect(tables == 1)
    }

    @Test("a file from a newer build is refused with a clear message")
    func newerVersion() throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.storePath)
        try queue.sync { db in try db.execute("PRAGMA user_version = 9") }
        let error = try #require(throws: DatabaseError.self) {
            try queue.sync { db in try migrator(steps: 2, log: Protected([])).migrate(db) }
        }
        #expect(error.message.contains("schema version 9, newer than this build knows (2)"))
    }

    @Test("the store's own schema migrates once and opening again keeps the data")
    func storeSchema() throws {
        let directory = try TemporaryDirectory()
        let exchange = ExchangeFixtures.simple(1)
        try ExchangeStore(path: directory.storePath).insert([exchange])
        let again = try ExchangeStore(path: directory.storePath)
        #expect(try again.withDatabase { db in try DatabaseMigrator.version(of: db) } == ExchangeStore.schemaVersion)
        #expect(try again.exchange(id: exchange.id) == exchange)
        #expect(try again.withDatabase { db in try db.pragma("auto_vacuum")?.int64 } == 2)  // INCREMENTAL
    }
}
