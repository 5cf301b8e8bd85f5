import Foundation
import NetTapCore
import Testing

@testable import NetTapStore

@Suite("Page size: new files get 16 KiB pages; older files keep theirs and checkpoint after the same WAL bytes")
struct StorePageSizeTests {
    /// Opens the store at `path`, writes 50 exchanges, and reads back the settings under test.
    private static func storeAndSettings(at path: String) throws
        -> (store: ExchangeStore, pageSize: Int64, autocheckpoint: Int64, journal: String?, integrity: String?)
    {
        let store = try ExchangeStore(path: path, configuration: .init(checkpointsInBackground: false))
        try store.insert((0 ..< 50).map { ExchangeFixtures.simple($0) })
        return try store.withDatabase { db in
            (store, try db.int64("PRAGMA page_size"), try db.int64("PRAGMA wal_autocheckpoint"),
             try db.scalar("PRAGMA journal_mode")?.text, try db.scalar("PRAGMA integrity_check")?.text)
        }
    }

    @Test("a new store is made with 16 KiB pages and checkpoints after 1,024 of them (16 MiB)")
    func newStore() throws {
        let directory = try TemporaryDirectory()
        let opened = try Self.storeAndSettings(at: directory.storePath)
        #expect(opened.pageSize == 16_384)
        #expect(opened.autocheckpoint == 1_024)
        #expect(opened.journal == "wal")
        #expect(opened.integrity == "ok")
        #expect(try opened.store.count() == 50)
    }

    @Test("a file made with 4 KiB pages keeps them, checkpoints after 4,096 of them, and stores as before")
    func olderFileKeepsItsPages() throws {
        let directory = try TemporaryDirectory()
        do {
            // Another tool (or an older NetTap) made the file with SQLite's default page size.
            let queue = try DatabaseQueue(
                path: directory.storePath,
                configuration: .init(prepareDatabase: { db in try db.execute("PRAGMA page_size = 4096") }))
            try queue.sync { db in try db.execute("CREATE TABLE other_tool (a)") }
        }
        let opened = try Self.storeAndSettings(at: directory.storePath)
        #expect(opened.pageSize == 4_096)
        #expect(opened.autocheckpoint == 4_096)
        #expect(opened.journal == "wal")
        #expect(opened.integrity == "ok")
        let page = try opened.store.exchanges(limit: 100)
        #expect(page.exchanges.count == 50)
    }
}
