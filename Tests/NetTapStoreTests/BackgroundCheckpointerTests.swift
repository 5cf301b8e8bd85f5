import Foundation
import NetTapCore
import Testing

@testable import NetTapStore

@Suite("BackgroundCheckpointer: the WAL reaches the file without the writer copying it")
struct BackgroundCheckpointerTests {
    /// Bytes that zlib cannot shrink, different for every seed, so each body takes its pages.
    private static func incompressible(_ count: Int, seed: UInt64) -> Data {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        return Data((0 ..< count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        })
    }

    private static func fileSize(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
    }

    @Test("more than a threshold of WAL pages is copied into the database file by the background connection")
    func walIsCopiedInTheBackground() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let checkpointer = try #require(store.checkpointer)
        let sizeBefore = try Self.fileSize(directory.storePath)
        // 2,400 exchanges with 8 KiB bodies: about 20 MiB of pages, over the 16 MiB threshold.
        for batch in 0 ..< 12 {
            let exchanges = (0 ..< 200).map { offset -> Exchange in
                let index = batch * 200 + offset
                return ExchangeFixtures.simple(index, responseBody: Self.incompressible(8192, seed: UInt64(index + 1)))
            }
            try store.insert(exchanges)
        }
        checkpointer.wait()
        #expect(checkpointer.lastError == nil)
        #expect(checkpointer.completedCheckpoints >= 1)
        // SQLite's own automatic checkpoint is off (the commit hook replaces it), so the pages in
        // the file came through the background connection.
        let sizeAfter = try Self.fileSize(directory.storePath)
        #expect(sizeAfter - sizeBefore > 15 << 20, "database file grew from \(sizeBefore) to \(sizeAfter) bytes")
        #expect(try store.count() == 2400)
        let integrity = try store.withDatabase { db in try db.scalar("PRAGMA integrity_check")?.text }
        #expect(integrity == "ok")
    }

    @Test("with background checkpoints off there is no second connection and SQLite checkpoints in the commit")
    func inlineWhenTurnedOff() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath, configuration: .init(checkpointsInBackground: false))
        #expect(store.checkpointer == nil)
        let sizeBefore = try Self.fileSize(directory.storePath)
        for batch in 0 ..< 12 {
            try store.insert((0 ..< 200).map { offset in
                let index = batch * 200 + offset
                return ExchangeFixtures.simple(index, responseBody: Self.incompressible(8192, seed: UInt64(index + 1)))
            })
        }
        let sizeAfter = try Self.fileSize(directory.storePath)
        #expect(sizeAfter - sizeBefore > 15 << 20, "database file grew from \(sizeBefore) to \(sizeAfter) bytes")
    }
}
