import Foundation
import NetTapCore
import Testing

@testable import NetTapStore

@Suite("StoreSink: batching, dropping, flushing, retention")
struct StoreSinkTests {
    private static let never: TimeInterval = 3600

    @Test("a batch is written as soon as batchSize exchanges wait, without a flush or the timer")
    func batchBySize() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let sink = StoreSink(store: store, configuration: .init(batchInterval: Self.never, batchSize: 50, retention: .unlimited))
        let exchanges = (0 ..< 50).map { ExchangeFixtures.simple($0) }
        for exchange in exchanges.prefix(49) { sink.receive(.finished(exchange)) }
        #expect(!sink.waitForWritten(1, timeout: 0.3), "49 of 50 must wait for the 50th")
        sink.receive(.finished(exchanges[49]))
        #expect(sink.waitForWritten(50, timeout: 30))
        #expect(try store.count() == 50)
        #expect(sink.counters.batches == 1)
    }

    @Test("a lone exchange is written by the timer within the batch interval")
    func batchByTime() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let sink = StoreSink(store: store, configuration: .init(batchInterval: 0.05, batchSize: 10_000, retention: .unlimited))
        let exchange = ExchangeFixtures.rich()
        sink.receive(.finished(exchange))
        #expect(sink.waitForWritten(1, timeout: 30))
        #expect(try store.exchange(id: exchange.id) == exchange)
        // The timer re-arms for the next one.
        sink.receive(.finished(ExchangeFixtures.simple(2)))
        #expect(sink.waitForWritten(2, timeout: 30))
    }

    @Test("many events become few transactions, and flush writes everything received")
    func batchingAndFlush() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let sink = StoreSink(store: store, configuration: .init(batchSize: 500, pendingLimit: 100_000, retention: .unlimited))
        let exchanges = (0 ..< 3000).map { ExchangeFixtures.simple($0, labels: ["n": "\($0 % 7)"]) }
        for exchange in exchanges { sink.receive(.finished(exchange)) }
        try sink.flush()
        let counters = sink.counters
        #expect(counters.written == 3000)
        #expect(counters.dropped == 0)
        #expect(counters.batches >= 1)
        #expect(counters.batches <= 3000 / 500 + 2)
        #expect(try store.count() == 3000)
        #expect(try store.exchange(id: exchanges[1234].id) == exchanges[1234])
        #expect(sink.pendingCount == 0)
    }

    @Test("a backlog is written in transactions of at most maxBatchSize, oldest first")
    func backlogInCappedTransactions() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let sink = StoreSink(
            store: store,
            configuration: .init(batchInterval: Self.never, batchSize: 1_000, maxBatchSize: 25, retention: .unlimited))
        let exchanges = (0 ..< 110).map { ExchangeFixtures.simple($0) }
        for exchange in exchanges { sink.receive(.finished(exchange)) }
        #expect(sink.pendingCount == 110, "nothing reaches batchSize and the timer never fires")
        try sink.flush()
        #expect(sink.counters.batches == 5, "25 + 25 + 25 + 25 + 10")
        #expect(sink.counters.written == 110)
        #expect(try store.count() == 110)
        let oldest = try store.exchanges(limit: 1, order: .oldestFirst).exchanges.first
        #expect(oldest?.id == exchanges[0].id)
    }

    @Test("with a tiny pending limit the oldest are dropped and counted, and the newest are kept")
    func dropsOldest() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let sink = StoreSink(
            store: store, configuration: .init(batchInterval: Self.never, batchSize: 1000, pendingLimit: 5, retention: .unlimited))
        let exchanges = (0 ..< 12).map { ExchangeFixtures.simple($0) }
        for exchange in exchanges { sink.receive(.finished(exchange)) }
        #expect(sink.droppedCount == 7)
        #expect(sink.pendingCount == 5)
        try sink.flush()
        #expect(sink.writtenCount == 5)
        var stored: [UUID] = []
        try store.forEach(order: .oldestFirst) { stored.append($0.id) }
        #expect(stored == exchanges.suffix(5).map(\.id))
        #expect(try store.stats().droppedEvents == 7)
    }

    @Test("receive never waits for a store locked by another process: it drops and counts instead")
    func neverBlocks() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath, configuration: .init(busyTimeout: 60))
        let sink = StoreSink(
            store: store, configuration: .init(batchInterval: Self.never, batchSize: 5, pendingLimit: 20, retention: .unlimited))
        let locker = try DatabaseQueue(path: directory.storePath)
        let exchanges = (0 ..< 110).map { ExchangeFixtures.simple($0) }
        try locker.sync { db in
            try db.execute("BEGIN IMMEDIATE")
            // The first batch now waits for the lock; everything after it piles up in the bounded buffer.
            for exchange in exchanges { sink.receive(.finished(exchange)) }
            #expect(sink.pendingCount <= 20)
            try db.execute("COMMIT")
        }
        try sink.flush()
        let counters = sink.counters
        #expect(counters.dropped > 0)
        #expect(counters.written + counters.dropped == 110)
        #expect(counters.failed == 0)
        #expect(try store.count() == counters.written)
        #expect(try store.stats().droppedEvents == Int64(counters.dropped))
        // The newest exchange always survives: drops take the oldest.
        #expect(try store.exchange(id: exchanges[109].id) != nil)
    }

    @Test("duplicates and invalid exchanges are counted and skipped without losing the rest of the batch")
    func duplicatesAndRejects() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let sink = StoreSink(store: store, configuration: .init(batchInterval: Self.never, retention: .unlimited))
        let first = ExchangeFixtures.simple(1, responseBody: Data(repeating: 5, count: 4000))
        var invalid = ExchangeFixtures.simple(2)
        invalid.startedAt = Date(timeIntervalSinceReferenceDate: .infinity)
        for event in [first, first, invalid, ExchangeFixtures.simple(3)] { sink.receive(.finished(event)) }
        sink.receive(.started(ExchangeStart(
            id: UUID(), sessionID: "s", startedAt: Date(), method: "GET", url: "https://x", labels: [:], capturePath: .session)))
        try sink.flush()
        let counters = sink.counters
        #expect(counters.written == 2)
        #expect(counters.duplicates == 1)
        #expect(counters.rejected == 1)
        #expect(try store.count() == 2)
        // The skipped duplicate did not leave a stray body reference.
        #expect(try store.withDatabase { db in try db.int64("SELECT max(refs) FROM bodies") } == 1)
    }

    @Test("one batch counts its body references once per body: shared, skipped and new references add up exactly")
    func coalescedBodyReferences() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let sink = StoreSink(store: store, configuration: .init(batchInterval: Self.never, retention: .unlimited))
        let shared = Data(repeating: 7, count: 3000)
        let fresh = Data("first seen in the second batch".utf8)
        let stored = ExchangeFixtures.simple(0, responseBody: shared)
        sink.receive(.finished(stored))
        try sink.flush()
        // Second batch: the stored exchange again (skipped) carrying a body no row has yet, then
        // five new exchanges sharing the old body and two sharing the new one.
        var again = stored
        again.response?.body = CapturedBody(data: fresh, contentType: "text/plain")
        sink.receive(.finished(again))
        for index in 1 ... 5 { sink.receive(.finished(ExchangeFixtures.simple(index, responseBody: shared))) }
        for index in 6 ... 7 { sink.receive(.finished(ExchangeFixtures.simple(index, responseBody: fresh))) }
        try sink.flush()
        #expect(sink.counters.duplicates == 1)
        #expect(try store.count() == 8)
        let refs = try store.withDatabase { db -> [Int64: Int64] in
            var refs: [Int64: Int64] = [:]
            try db.prepare("SELECT size, refs FROM bodies").forEachRow { row in refs[row.int64(at: 0)] = row.int64(at: 1) }
            return refs
        }
        #expect(refs == [Int64(shared.count): 6, Int64(fresh.count): 2])
        // Every reference is real: each exchange reads back its own bytes.
        for index in 1 ... 7 {
            let exchange = try #require(try store.exchanges(limit: 8).exchanges.first { $0.request.url.contains("/items/\(index)?") })
            #expect(exchange.response?.body?.data == (index <= 5 ? shared : fresh))
        }
    }

    @Test("retention runs after batches and keeps the store within its limit")
    func retentionAfterBatches() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let sink = StoreSink(store: store, configuration: .init(batchSize: 100, retention: RetentionPolicy(maxCount: 150)))
        let exchanges = (0 ..< 1000).map { ExchangeFixtures.simple($0) }
        for exchange in exchanges { sink.receive(.finished(exchange)) }
        try sink.flush()
        #expect(try store.count() == 150)
        #expect(sink.counters.pruned == 850)
        var kept: [UUID] = []
        try store.forEach(order: .oldestFirst) { kept.append($0.id) }
        #expect(kept == exchanges.suffix(150).map(\.id))
    }

    @Test("after close, events are ignored; what came before is stored")
    func close() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let sink = StoreSink(store: store, configuration: .init(batchInterval: Self.never, retention: .unlimited))
        sink.receive(.finished(ExchangeFixtures.simple(1)))
        sink.close()
        sink.receive(.finished(ExchangeFixtures.simple(2)))
        sink.close()
        try sink.flush()
        #expect(try store.count() == 1)
        #expect(sink.pendingCount == 0)
    }

    @Test("a batch that cannot be written is counted as failed and reported by flush")
    func failedBatch() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let sink = StoreSink(store: store, configuration: .init(batchInterval: Self.never, retention: .unlimited))
        try store.withDatabase { db in
            try db.execute("CREATE TEMP TRIGGER refuse BEFORE INSERT ON exchanges BEGIN SELECT RAISE(ABORT, 'disk says no'); END")
        }
        sink.receive(.finished(ExchangeFixtures.simple(1)))
        sink.receive(.finished(ExchangeFixtures.simple(2)))
        let error = try #require(throws: DatabaseError.self) { try sink.flush() }
        #expect(error.message.contains("disk says no"))
        #expect(sink.counters.failed == 2)
        #expect(sink.lastError != nil)
        #expect(try store.count() == 0)
        try store.withDatabase { db in try db.execute("DROP TRIGGER temp.refuse") }
        sink.receive(.finished(ExchangeFixtures.simple(3)))
        try sink.flush()
        #expect(try store.count() == 1)
    }
}
