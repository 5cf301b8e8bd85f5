import Foundation
import NetTapCore
import Testing

@testable import NetTapStore

@Suite("ExchangeStore.insert: one transaction, all or nothing")
struct ExchangeStoreInsertTests {
    /// Everything a failed insert must leave untouched.
    private func snapshot(_ store: ExchangeStore) throws -> [String] {
        try store.withDatabase { db in
            var rows: [String] = []
            for table in ["exchanges", "bodies", "exchange_labels", "meta"] {
                try db.prepare("SELECT * FROM \(table) ORDER BY 1, 2").forEachRow { row in
                    rows.append(table + ": " + (0 ..< row.columnCount).map { "\(row.value(at: $0))" }.joined(separator: "|"))
                }
            }
            return rows
        }
    }

    @Test("a duplicate ID in the middle of a batch stores nothing and names the index")
    func duplicateInBatch() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let existing = ExchangeFixtures.simple(0, labels: ["screen": "home"], responseBody: Data(repeating: 3, count: 3000))
        try store.insert([existing])
        let before = try snapshot(store)
        var batch = (1 ... 20).map {
            ExchangeFixtures.simple($0, labels: ["screen": "s\($0)"], responseBody: Data(repeating: 3, count: 3000))
        }
        batch.insert(existing, at: 13)
        let error = try #require(throws: ExchangeStoreError.self) { try store.insert(batch) }
        guard case .insertFailed(let index, let id, let reason) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(index == 13)
        #expect(id == existing.id)
        #expect(reason.contains("already stored"))
        #expect(error.description.contains("index 13"))
        #expect(try snapshot(store) == before)
        #expect(try store.count() == 1)
        // The store works after the failure, and the body reference count was not disturbed.
        batch.remove(at: 13)
        #expect(try store.insert(batch) == 20)
        #expect(try store.count() == 21)
        let refs = try store.withDatabase { db in try db.int64("SELECT refs FROM bodies") }
        #expect(refs == 21)
    }

    @Test("an exchange with a value SQLite cannot keep (NaN date) rejects the whole batch by index")
    func invalidExchange() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        var bad = ExchangeFixtures.simple(3)
        bad.startedAt = Date(timeIntervalSinceReferenceDate: .nan)
        let batch = [ExchangeFixtures.simple(1), ExchangeFixtures.simple(2), bad]
        let error = try #require(throws: ExchangeStoreError.self) { try store.insert(batch) }
        guard case .insertFailed(let index, _, let reason) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(index == 2)
        #expect(reason.contains("startedAt"))
        #expect(try store.count() == 0)
        var infinite = ExchangeFixtures.simple(4)
        infinite.duration = .infinity
        #expect(throws: ExchangeStoreError.self) { try store.insert([infinite]) }
    }

    @Test("a failure from SQLite itself mid-batch (a trigger that aborts) rolls back everything")
    func sqliteFailureMidBatch() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        try store.insert([ExchangeFixtures.simple(0)])
        // Stands in for any failure inside the transaction (disk full, I/O error).
        try store.withDatabase { db in
            try db.execute(
                """
                CREATE TEMP TRIGGER refuse BEFORE INSERT ON exchanges WHEN NEW.url LIKE '%/items/7?%'
                BEGIN SELECT RAISE(ABORT, 'refused by test trigger'); END
                """)
        }
        let before = try snapshot(store)
        let batch = (1 ... 10).map { ExchangeFixtures.simple($0, labels: ["k": "\($0)"]) }
        let error = try #require(throws: ExchangeStoreError.self) { try store.insert(batch) }
        guard case .insertFailed(let index, _, let reason) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(index == 6)
        #expect(reason.contains("refused by test trigger"))
        #expect(try snapshot(store) == before)
    }

    @Test("a large import goes in as one transaction and reads back in full")
    func largeImport() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let batch = (0 ..< 5000).map { ExchangeFixtures.simple($0, labels: ["n": "\($0 % 10)"]) }
        #expect(try store.insert(batch) == 5000)
        #expect(try store.count() == 5000)
        #expect(try store.count(matching: ExchangeFilter(labels: ["n": "3"])) == 500)
        #expect(try store.exchange(id: batch[4321].id) == batch[4321])
        #expect(try store.insert([]) == 0)
    }
}
