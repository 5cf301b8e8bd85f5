import Foundation
import NetTapCore
import Testing

@testable import NetTapStore

@Suite("ExchangeStore round trip")
struct ExchangeStoreRoundTripTests {
    @Test("a rich exchange reads back equal to what was stored, in the same store and after reopening")
    func richRoundTrip() throws {
        let directory = try TemporaryDirectory()
        let original = ExchangeFixtures.rich()
        let failed = ExchangeFixtures.failed()
        do {
            let store = try ExchangeStore(path: directory.storePath)
            try store.insert([original, failed])
            #expect(try store.exchange(id: original.id) == original)
            #expect(try store.exchange(id: failed.id) == failed)
        }
        let reopened = try ExchangeStore(path: directory.storePath)
        let readBack = try #require(try reopened.exchange(id: original.id))
        #expect(readBack == original)
        // Field by field too, so that a failure says which part differs.
        #expect(readBack.request == original.request)
        #expect(readBack.response == original.response)
        #expect(readBack.metrics == original.metrics)
        #expect(readBack.redirects == original.redirects)
        #expect(readBack.labels == original.labels)
        #expect(readBack.modifications == original.modifications)
        #expect(readBack.startedAt == original.startedAt)
        #expect(try reopened.exchange(id: failed.id) == failed)
        #expect(try reopened.exchange(id: UUID()) == nil)
    }

    @Test("bodies: none, empty, size unknown, binary, text, truncated, redacted, unavailable")
    func bodyVariants() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let bodies: [CapturedBody?] = [
            nil,
            CapturedBody(data: Data()),
            CapturedBody(data: Data("abc".utf8), size: nil, isTruncated: true),
            CapturedBody(data: Data([0, 1, 2, 0xfe, 0xff])),
            CapturedBody(data: Data(String(repeating: "é", count: 5000).utf8), contentType: "text/plain"),
            CapturedBody.capturing(Data(repeating: 7, count: 4000), cap: 1500, contentType: nil),
            CapturedBody(data: Data("[REDACTED]".utf8), isRedacted: true),
            CapturedBody.unavailable(size: 12, contentType: "image/png", reason: "download task"),
        ]
        var stored: [Exchange] = []
        for (index, body) in bodies.enumerated() {
            var exchange = ExchangeFixtures.simple(index)
            exchange.request.body = body
            exchange.response?.body = body
            stored.append(exchange)
        }
        try store.insert(stored)
        for exchange in stored {
            let readBack = try store.exchange(id: exchange.id)
            #expect(readBack == exchange, "body \(String(describing: exchange.request.body))")
        }
    }

    @Test("an exchange with a response but no headers or body, and dates far from now")
    func sparseExchange() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let exchanges = [
            Exchange(
                sessionID: "", startedAt: Date(timeIntervalSince1970: 0), request: CapturedRequest(method: "", url: ""),
                response: CapturedResponse(statusCode: 204), capturePath: .session),
            Exchange(
                sessionID: "x", startedAt: Date(timeIntervalSinceReferenceDate: 1e9 + 0.000_000_1),
                duration: 0, request: CapturedRequest(method: "get", url: "http://[::1]:8080"),
                response: CapturedResponse(statusCode: 999, headers: [:]), metrics: TimingMetrics(),
                capturePath: .urlProtocol, taskKind: .download),
        ]
        try store.insert(exchanges)
        for exchange in exchanges {
            #expect(try store.exchange(id: exchange.id) == exchange)
        }
    }

    @Test("the indexed columns hold what sqlite3 users query by")
    func queryableColumns() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let exchange = ExchangeFixtures.rich(startedAt: Date(timeIntervalSince1970: 1_764_685_000.25))
        try store.insert([exchange])
        let row = try store.withDatabase { db -> [DatabaseValue] in
            let statement = try db.prepare(
                """
                SELECT host, path, url_template, method, status, started_iso, request_size, response_size,
                       capture_path, json_extract(labels, '$.screen'),
                       (SELECT value FROM exchange_labels WHERE exchange_rowid = exchanges.rowid AND key = 'screen'),
                       (SELECT json_extract(value, '$.value') FROM json_each(response_headers)
                        WHERE json_extract(value, '$.name') = 'Content-Type')
                FROM exchanges
                """)
            var values: [DatabaseValue] = []
            try statement.forEachRow { row in values = (0 ..< row.columnCount).map { row.value(at: $0) } }
            return values
        }
        #expect(
            row == [
                .text("api.example.com"), .text("/v1/users/42/photos"), .text("/v1/users/{id}/photos"), .text("POST"),
                .integer(201), .text("2025-12-02T14:16:40.250Z"), .integer(10_000),
                .integer(Int64(exchange.response?.body?.data.count ?? -1)), .text("session"), .text("Checkout"),
                .text("Checkout"), .text("application/json; charset=utf-8"),
            ])
    }
}
