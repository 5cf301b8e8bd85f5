import Foundation
import NetTapCore
import Testing

@testable import NetTapStore

@Suite("Page size: new files get 16 KiB pages; older files keep theirs and checkpoint after the same WAL bytes")
struct StorePageSizeTests {
    @Test("a new store is made with 16 KiB pages and checkpoints after 1,024 of them (16 MiB)")
    func newStore() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath, configuration: .init(checkpointsInBackground: false))
        try store.insert((0 ..< 50).map { ExchangeFixtures.simple($0) })
        let (pageSize, autocheckpoint, journal) = try store.withDatabase { db in
            (try db.int64("PRAGMA page_size"), try db.int64("PRAGMA wal_autocheckpoint"), try db.scalar("PRAGMA journal_mode")?.text)
        }
        #expect(pageSize == 16_384)
        #expect(autocheckpoint == 1_024)
        #expect(journal == "wal")
        #expect(try store.count() == 50)
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
        let store = try ExchangeStore(path: directory.storePath, configuration: .init(checkpointsInBackground: false))
        try store.insert((0 ..< 50).map { ExchangeFixtures.simple($0) })
        let (pageSize, autocheckpoint, integrity) = try store.withDatabase { db in
            (try db.int64("PRAGMA page_size"), try db.int64("PRAGMA wal_autocheckpoint"), try db.scalar("PRAGMA integrity_check")?.text)
        }
        #expect(pageSize == 4_096)
        #expect(autocheckpoint == 4_096)
        #expect(integrity == "ok")
        let page = try store.exchanges(limit: 100)
        #expect(page.exchanges.count == 50)
    }
}
