import Foundation
import NetTapCore
import Testing

@testable import NetTapStore

/// Deduplication by the writer's memory of recent bodies (`RecentBodies`), which replaced the
/// unique index on `bodies.hash` in schema version 2, and the migration to that version.
@Suite("Body deduplication without a hash index, and the version 2 migration")
struct BodyDeduplicationTests {
    private struct BodyRow: Equatable {
        var id: Int64
        var hash: String
        var refs: Int64
    }

    private func bodyRows(_ store: ExchangeStore) throws -> [BodyRow] {
        try store.withDatabase { db in
            var rows: [BodyRow] = []
            try db.prepare("SELECT id, hash, refs FROM bodies ORDER BY id").forEachRow { row in
                rows.append(BodyRow(id: row.int64(at: 0), hash: SHA256.hex([UInt8](row.data(at: 1) ?? Data())), refs: row.int64(at: 2)))
            }
            return rows
        }
    }

    private func hex(_ data: Data) -> String { SHA256.hex(SHA256.hash(data)) }

    private func body(_ text: String) -> Data { Data(text.utf8) }

    @Test("bytes seen in an earlier transaction gain a reference instead of a row; so do they after reopening the store")
    func acrossTransactionsAndReopen() throws {
        let directory = try TemporaryDirectory()
        let shared = body("{\"items\":[]}")
        do {
            let store = try ExchangeStore(path: directory.storePath)
            try store.insert([ExchangeFixtures.simple(1, responseBody: shared)])
            try store.insert([ExchangeFixtures.simple(2, responseBody: shared)])
            #expect(try bodyRows(store).map(\.refs) == [2])
        }
        let reopened = try ExchangeStore(path: directory.storePath)
        let third = ExchangeFixtures.simple(3, responseBody: shared)
        try reopened.insert([third])
        let rows = try bodyRows(reopened)
        #expect(rows.count == 1)
        #expect(rows.first?.hash == hex(shared))
        #expect(rows.first?.refs == 3)
        #expect(try reopened.exchange(id: third.id) == third)
    }

    @Test("a remembered body that retention deleted is stored again, complete")
    func rememberedButDeleted() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let bytes = body("{\"deleted\":\"then seen again\"}")
        try store.insert([ExchangeFixtures.simple(1, responseBody: bytes)])
        let pruned = try store.prune(olderThan: ExchangeFixtures.base.addingTimeInterval(10))
        #expect(pruned.removedBodies == 1)
        #expect(try bodyRows(store).isEmpty)
        let again = ExchangeFixtures.simple(20, responseBody: bytes)
        try store.insert([again])
        #expect(try bodyRows(store).map(\.hash) == [hex(bytes)])
        #expect(try store.exchange(id: again.id) == again)
    }

    @Test("a remembered id that SQLite has since given to other bytes is not used for the old bytes")
    func reusedID() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let first = body("{\"first\":1}")
        let second = body("{\"second\":2}")
        try store.insert([ExchangeFixtures.simple(1, responseBody: first)])
        let firstID = try #require(try bodyRows(store).first?.id)
        _ = try store.prune(olderThan: ExchangeFixtures.base.addingTimeInterval(10))
        // The highest rowid was deleted, so SQLite hands the same id to the next row.
        let secondExchange = ExchangeFixtures.simple(20, responseBody: second)
        try store.insert([secondExchange])
        #expect(try bodyRows(store) == [BodyRow(id: firstID, hash: hex(second), refs: 1)])
        let firstAgain = ExchangeFixtures.simple(21, responseBody: first)
        try store.insert([firstAgain])
        let rows = try bodyRows(store)
        #expect(rows.map(\.hash) == [hex(second), hex(first)])
        #expect(rows.map(\.refs) == [1, 1])
        #expect(try store.exchange(id: firstAgain.id) == firstAgain)
        #expect(try store.exchange(id: secondExchange.id) == secondExchange)
    }

    @Test("bytes last seen beyond the window are stored as a second, complete row; a window of 0 keeps no memory")
    func beyondTheWindow() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath, configuration: .init(deduplicationWindow: 2))
        let a = body("{\"a\":1}")
        let exchanges = [a, body("{\"b\":2}"), body("{\"c\":3}"), a].enumerated().map {
            ExchangeFixtures.simple($0.offset, responseBody: $0.element)
        }
        // One transaction each, so that only the window (not the transaction's own map) remembers.
        for exchange in exchanges { try store.insert([exchange]) }
        let rows = try bodyRows(store)
        #expect(rows.count == 4)
        #expect(rows.filter { $0.hash == hex(a) }.map(\.refs) == [1, 1])
        for exchange in exchanges { #expect(try store.exchange(id: exchange.id) == exchange) }

        let other = try TemporaryDirectory()
        let none = try ExchangeStore(path: other.storePath, configuration: .init(deduplicationWindow: 0))
        try none.insert([ExchangeFixtures.simple(1, responseBody: a)])
        try none.insert([ExchangeFixtures.simple(2, responseBody: a)])
        #expect(try bodyRows(none).map(\.refs) == [1, 1])
    }

    @Test("the window evicts by second chance: a body used since it was remembered outlives one that was not")
    func secondChance() {
        var recent = RecentBodies(capacity: 2)
        recent.remember(1, id: 10)
        recent.remember(2, id: 20)
        #expect(recent.id(for: 1) == 10)  // used: survives the next eviction
        recent.remember(3, id: 30)  // evicts 2
        #expect(recent.count == 2)
        #expect(recent.id(for: 2) == nil)
        #expect(recent.id(for: 1) == 10)
        #expect(recent.id(for: 3) == 30)
        recent.remember(4, id: 40)  // both used: one full turn clears them, then the hand's entry goes
        #expect(recent.count == 2)
        #expect(recent.id(for: 4) == 40)
        #expect([recent.id(for: 1), recent.id(for: 3)].compactMap { $0 }.count == 1)
        recent.remember(4, id: 41)  // the same bytes stored again: the entry follows the new row
        #expect(recent.id(for: 4) == 41)
        #expect(RecentBodies.key(SHA256.hash(Data("x".utf8))) != RecentBodies.key(SHA256.hash(Data("y".utf8))))
    }

    @Test("a version 1 store migrates: exchanges, bodies and counts survive, the hash index goes, new exchanges share old bodies")
    func migratesVersion1() throws {
        let directory = try TemporaryDirectory()
        let shared = body("{\"shared\":true}")
        let old = (0 ..< 3).map { ExchangeFixtures.simple($0, method: $0 == 1 ? "POST" : "GET", responseBody: $0 < 2 ? shared : nil) }
        do {
            var version1 = DatabaseMigrator()
            version1.register("v1") { db in try db.execute(StoreSchema.version1) }
            let queue = try DatabaseQueue(path: directory.storePath)
            try queue.sync { db in
                try version1.migrate(db)
                try db.inTransaction {
                    let writer = try RecordWriter(db: db, recentBodies: Protected(RecentBodies(capacity: 16)))
                    for exchange in old {
                        _ = try writer.insert(try ExchangeRecord(exchange, compressionThreshold: 1024), skipDuplicate: false)
                    }
                    try writer.finish()
                }
                #expect(try db.int64("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'bodies'") == 1)
            }
        }
        let store = try ExchangeStore(path: directory.storePath)
        try store.withDatabase { db throws in
            #expect(try DatabaseMigrator.version(of: db) == 2)
            #expect(try db.int64("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'bodies'") == 0)
            #expect(try db.pragma("integrity_check")?.text == "ok")
        }
        for exchange in old { #expect(try store.exchange(id: exchange.id) == exchange) }
        #expect(try bodyRows(store).first { $0.hash == hex(shared) }?.refs == 2)
        let new = ExchangeFixtures.simple(10, responseBody: shared)
        try store.insert([new])
        #expect(try bodyRows(store).filter { $0.hash == hex(shared) }.map(\.refs) == [3])
        var posts = ExchangeFilter()
        posts.method = "post"
        #expect(try store.exchanges(matching: posts, limit: 10).exchanges.map(\.id) == [old[1].id])
    }
}
