import Foundation
import NetTapCore
import Testing

@testable import NetTapStore

@Suite("Retention: by count, size and age, in small chunks")
struct RetentionTests {
    private func newestIDs(_ store: ExchangeStore) throws -> [UUID] {
        var ids: [UUID] = []
        try store.forEach(includeBodies: false) { ids.append($0.id) }
        return ids
    }

    @Test("maxCount keeps exactly the newest exchanges and their labels")
    func byCount() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let all = (0 ..< 1000).map { ExchangeFixtures.simple($0, labels: ["i": "\($0)"]) }
        try store.insert(all)
        let result = try store.prune(maxCount: 300)
        #expect(result.removedExchanges == 700)
        #expect(result.limitsMet)
        #expect(try newestIDs(store) == all.suffix(300).reversed().map(\.id))
        let labelRows = try store.withDatabase { db in try db.int64("SELECT count(*) FROM exchange_labels") }
        #expect(labelRows == 300)
        #expect(try store.prune(maxCount: 300).removedExchanges == 0)
    }

    @Test("olderThan removes exactly the exchanges started before the cutoff")
    func byAge() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let all = (0 ..< 500).map { ExchangeFixtures.simple($0) }
        try store.insert(all)
        let cutoff = ExchangeFixtures.base.addingTimeInterval(123.5)
        let result = try store.prune(olderThan: cutoff)
        #expect(result.removedExchanges == all.filter { $0.startedAt < cutoff }.count)
        #expect(try newestIDs(store) == all.filter { $0.startedAt >= cutoff }.reversed().map(\.id))
    }

    @Test("maxSize removes the oldest until the pages in use fit, and the file shrinks")
    func bySize() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let all = (0 ..< 300).map { ExchangeFixtures.simple($0, responseBody: ExchangeFixtures.randomData(10_000)) }
        try store.insert(all)
        try store.checkpoint()
        let fileBefore = try #require(try FileManager.default.attributesOfItem(atPath: directory.storePath)[.size] as? NSNumber)
        let limit: Int64 = 1 << 20
        let result = try store.prune(maxSize: limit)
        #expect(result.usedBytesBefore > 3_000_000)
        #expect(result.usedBytesAfter <= limit)
        #expect(result.removedExchanges > 200)
        #expect(result.removedBodies == result.removedExchanges)
        let stats = try store.stats()
        #expect(stats.usedBytes <= limit)
        // Only the oldest went: what is left is the newest, in one piece.
        #expect(try newestIDs(store) == all.suffix(stats.exchangeCount).reversed().map(\.id))
        // Not too many either: one more chunk would have been enough to stay under.
        #expect(stats.exchangeCount > 300 - result.removedExchanges - ExchangeStore.sizePruneChunk)
        try store.checkpoint()
        let fileAfter = try #require(try FileManager.default.attributesOfItem(atPath: directory.storePath)[.size] as? NSNumber)
        #expect(fileAfter.int64Value < fileBefore.int64Value / 2)
    }

    @Test("an incremental pass deletes at most its chunks; repeated passes finish the job")
    func incremental() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        try store.insert((0 ..< 1000).map { ExchangeFixtures.simple($0) })
        let policy = RetentionPolicy(maxCount: 100)
        let first = try store.applyRetention(policy, maxChunks: 1)
        #expect(first.removedExchanges == ExchangeStore.pruneChunk)
        #expect(!first.limitsMet)
        var passes = 1
        var last = first
        while !last.limitsMet, passes < 100 {
            last = try store.applyRetention(policy, maxChunks: 1)
            #expect(last.removedExchanges <= ExchangeStore.pruneChunk)
            passes += 1
        }
        #expect(try store.count() == 100)
        #expect(passes == 900 / ExchangeStore.pruneChunk + 1 + (900 % ExchangeStore.pruneChunk == 0 ? 0 : 1))
    }

    @Test("maxAge in a policy is measured from now")
    func policyAge() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let now = Date()
        let all = (0 ..< 10).map { ExchangeFixtures.simple($0, startedAt: now.addingTimeInterval(-Double($0) * 3600)) }
        try store.insert(all)
        let result = try store.applyRetention(RetentionPolicy(maxAge: 4.5 * 3600), now: now, maxChunks: nil)
        #expect(result.removedExchanges == 5)
        #expect(Set(try newestIDs(store)) == Set(all.prefix(5).map(\.id)))
    }

    @Test("the count stays right when another connection changed the file in between")
    func countAfterOutsideWrites() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        try store.insert((0 ..< 50).map { ExchangeFixtures.simple($0) })
        #expect(try store.prune(maxCount: 50).removedExchanges == 0)
        let other = try ExchangeStore(path: directory.storePath)
        try other.insert((50 ..< 80).map { ExchangeFixtures.simple($0) })
        #expect(try store.prune(maxCount: 50).removedExchanges == 30)
        #expect(try other.count() == 50)
    }

    @Test("negative limits are refused")
    func badArguments() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        #expect(throws: ExchangeStoreError.self) { try store.prune(maxSize: -1) }
        #expect(throws: ExchangeStoreError.self) { try store.prune(maxCount: -5) }
    }
}
