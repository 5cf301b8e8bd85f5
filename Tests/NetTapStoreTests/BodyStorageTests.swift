import Foundation
import NetTapCore
import Testing

@testable import NetTapStore

@Suite("Body storage: deduplication, compression, reference counts")
struct BodyStorageTests {
    private struct BodyRow: Equatable {
        var size: Int64
        var encoding: String
        var storedLength: Int64
        var refs: Int64
    }

    private func bodyRows(_ store: ExchangeStore) throws -> [String: BodyRow] {
        try store.withDatabase { db in
            var rows: [String: BodyRow] = [:]
            try db.prepare("SELECT hash, size, encoding, length(data), refs FROM bodies").forEachRow { row in
                let hash = SHA256.hex([UInt8](row.data(at: 0) ?? Data()))
                rows[hash] = BodyRow(
                    size: row.int64(at: 1), encoding: row.string(at: 2) ?? "", storedLength: row.int64(at: 3),
                    refs: row.int64(at: 4))
            }
            return rows
        }
    }

    @Test("identical bodies are stored once with a reference count; large ones compressed, small ones not")
    func dedupAndCompression() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let large = Data(String(repeating: "{\"id\":1,\"name\":\"same every time\"},", count: 200).utf8)
        let small = Data("{\"ok\":true}".utf8)
        var exchanges: [Exchange] = []
        for index in 0 ..< 5 {
            var exchange = ExchangeFixtures.simple(index, responseBody: large)
            exchange.request.body = CapturedBody(data: small)
            exchanges.append(exchange)
        }
        try store.insert(exchanges)
        let rows = try bodyRows(store)
        #expect(rows.count == 2)
        let largeRow = try #require(rows[SHA256.hex(SHA256.hash(large))])
        #expect(largeRow.refs == 5)
        #expect(largeRow.encoding == "zlib")
        #expect(largeRow.size == Int64(large.count))
        #expect(largeRow.storedLength < Int64(large.count) / 4)
        let smallRow = try #require(rows[SHA256.hex(SHA256.hash(small))])
        #expect(smallRow == BodyRow(size: Int64(small.count), encoding: "identity", storedLength: Int64(small.count), refs: 5))
        for exchange in exchanges { #expect(try store.exchange(id: exchange.id) == exchange) }
    }

    @Test("the same bytes in a request and a response share one row; incompressible large bodies stay identity")
    func sharedAcrossDirections() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let random = ExchangeFixtures.randomData(5000)
        var exchange = ExchangeFixtures.simple(1, responseBody: random)
        exchange.request.body = CapturedBody(data: random)
        try store.insert([exchange])
        let rows = try bodyRows(store)
        #expect(rows.count == 1)
        #expect(rows.values.first == BodyRow(size: 5000, encoding: "identity", storedLength: 5000, refs: 2))
        #expect(try store.exchange(id: exchange.id) == exchange)
    }

    @Test("the threshold is configurable: a body one byte over it is compressed, one at it is not")
    func threshold() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath, configuration: .init(compressionThreshold: 100))
        let atThreshold = Data(repeating: UInt8(ascii: "a"), count: 100)
        let over = Data(repeating: UInt8(ascii: "b"), count: 101)
        try store.insert([ExchangeFixtures.simple(1, responseBody: atThreshold), ExchangeFixtures.simple(2, responseBody: over)])
        let rows = try bodyRows(store)
        #expect(rows[SHA256.hex(SHA256.hash(atThreshold))]?.encoding == "identity")
        #expect(rows[SHA256.hex(SHA256.hash(over))]?.encoding == "zlib")
    }

    @Test("deleting exchanges releases references; a body goes when its last exchange goes")
    func releaseOnPrune() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let shared = Data(repeating: 1, count: 2000)
        let exchanges = (0 ..< 4).map { ExchangeFixtures.simple($0, responseBody: $0 < 3 ? shared : Data("own".utf8)) }
        try store.insert(exchanges)
        let cutoff = ExchangeFixtures.base.addingTimeInterval(1.5)  // removes exchanges 0 and 1
        let first = try store.prune(olderThan: cutoff)
        #expect(first.removedExchanges == 2)
        #expect(first.removedBodies == 0)
        #expect(try bodyRows(store)[SHA256.hex(SHA256.hash(shared))]?.refs == 1)
        let second = try store.prune(olderThan: ExchangeFixtures.base.addingTimeInterval(2.5))
        #expect(second.removedExchanges == 1)
        #expect(second.removedBodies == 1)
        #expect(try bodyRows(store).count == 1)
        #expect(try store.exchange(id: exchanges[3].id) == exchanges[3])
    }

    @Test("zlib round trip of many sizes, and a corrupt stream is an error, not a crash")
    func compressionRoundTrip() throws {
        for size in [1, 2, 100, 1025, 70_000] {
            let data = Data((0 ..< size).map { UInt8(truncatingIfNeeded: $0 % 7) })
            if let compressed = BodyCompression.compress(data) {
                #expect(try BodyCompression.decompress(compressed, originalSize: size) == data)
            } else {
                #expect(size < 16, "only tiny inputs may fail to shrink, not \(size)")
            }
        }
        #expect(throws: BodyCompression.Failure.self) {
            try BodyCompression.decompress(Data([1, 2, 3, 4, 5]), originalSize: 10)
        }
    }
}
