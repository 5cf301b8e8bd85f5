import Foundation
import NetTapCore
import Testing

@testable import NetTapStore

@Suite("Queries: filters and keyset pagination")
struct ExchangeFilterTests {
    /// A varied data set: hosts, methods, statuses, errors, labels, sessions, paths, capture paths,
    /// and runs of identical start times (so that pagination must break ties by rowid).
    static func dataSet() -> [Exchange] {
        let hosts = ["api.example.com", "cdn.example.com", "auth.example.org"]
        let methods = ["GET", "POST", "put", "DELETE"]
        let statuses: [Int?] = [200, 201, 204, 301, 404, 500, 503, nil, 200, 200]
        return (0 ..< 240).map { index in
            let status = statuses[index % statuses.count]
            let error = status == nil
                ? CaptureError(category: index % 20 == 7 ? .timeout : .connect, domain: "NSURLErrorDomain", code: -1, message: "x")
                : nil
            var labels: [String: String] = ["screen": ["home", "checkout", "profile"][index % 3]]
            if index % 4 == 0 { labels["scenario"] = "weak-network" }
            return ExchangeFixtures.simple(
                index, host: hosts[index % hosts.count], method: methods[index % methods.count], status: status,
                // Groups of three share a start time.
                startedAt: ExchangeFixtures.base.addingTimeInterval(Double(index / 3)),
                labels: labels, session: "session-\(index % 2)",
                path: index % 5 == 0 ? "/users/\(index)/orders" : "/search/Q\(index)",
                error: error, capturePath: index % 6 == 0 ? .session : .urlProtocol)
        }
    }

    /// The expected listing: newest first, later insertion first among equal start times.
    static func expected(_ all: [Exchange], where predicate: (Exchange) -> Bool) -> [UUID] {
        all.enumerated().filter { predicate($0.element) }
            .sorted { ($0.element.startedAt, $0.offset) > ($1.element.startedAt, $1.offset) }
            .map(\.element.id)
    }

    static func everything(_ store: ExchangeStore, _ filter: ExchangeFilter, pageSize: Int) throws -> [UUID] {
        var ids: [UUID] = []
        var cursor: ExchangeCursor?
        repeat {
            let page = try store.exchanges(matching: filter, limit: pageSize, after: cursor, includeBodies: false)
            #expect(page.exchanges.count <= pageSize)
            ids += page.exchanges.map(\.id)
            cursor = page.nextCursor
        } while cursor != nil
        return ids
    }

    static let base = ExchangeFixtures.base

    static let cases: [(String, ExchangeFilter, @Sendable (Exchange) -> Bool)] = [
        ("everything", ExchangeFilter(), { _ in true }),
        ("since", ExchangeFilter(since: base.addingTimeInterval(40)), { $0.startedAt >= base.addingTimeInterval(40) }),
        ("until", ExchangeFilter(until: base.addingTimeInterval(10)), { $0.startedAt < base.addingTimeInterval(10) }),
        (
            "since and until", ExchangeFilter(since: base.addingTimeInterval(5), until: base.addingTimeInterval(9)),
            { $0.startedAt >= base.addingTimeInterval(5) && $0.startedAt < base.addingTimeInterval(9) }
        ),
        ("host, any case", ExchangeFilter(host: "CDN.example.com"), { $0.request.host == "cdn.example.com" }),
        ("method, any case", ExchangeFilter(method: "Put"), { $0.request.method.uppercased() == "PUT" }),
        ("status range", ExchangeFilter(statusRange: 500 ... 599), { ($0.response?.statusCode ?? 0) / 100 == 5 }),
        ("error category", ExchangeFilter(errorCategory: .timeout), { $0.error?.category == .timeout }),
        ("failures only", ExchangeFilter(failuresOnly: true), { $0.isFailure }),
        ("one label", ExchangeFilter(labels: ["screen": "checkout"]), { $0.labels["screen"] == "checkout" }),
        (
            "two labels", ExchangeFilter(labels: ["screen": "home", "scenario": "weak-network"]),
            { $0.labels["screen"] == "home" && $0.labels["scenario"] == "weak-network" }
        ),
        ("session", ExchangeFilter(sessionID: "session-1"), { $0.sessionID == "session-1" }),
        ("URL text, any case", ExchangeFilter(urlContains: "/USERS/"), { $0.request.url.lowercased().contains("/users/") }),
        ("capture path", ExchangeFilter(capturePath: .session), { $0.capturePath == .session }),
        ("URL template", ExchangeFilter(urlTemplate: "/users/{id}/orders"), { $0.request.url.contains("/orders") }),
        (
            "combined", ExchangeFilter(host: "api.example.com", statusRange: 200 ... 299, labels: ["screen": "home"]),
            {
                $0.request.host == "api.example.com" && (200 ... 299).contains($0.response?.statusCode ?? 0)
                    && $0.labels["screen"] == "home"
            }
        ),
        ("nothing matches", ExchangeFilter(host: "nowhere.invalid"), { _ in false }),
    ]

    @Test("each filter returns exactly the matching exchanges, newest first, across pages without gaps or repeats")
    func filters() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let all = Self.dataSet()
        try store.insert(all)
        for (name, filter, predicate) in Self.cases {
            let expected = Self.expected(all, where: predicate)
            if name != "nothing matches" { #expect(!expected.isEmpty, "\(name): the data set should exercise this filter") }
            for pageSize in [1, 7, 100, 1000] {
                let listed = try Self.everything(store, filter, pageSize: pageSize)
                #expect(listed == expected, "\(name), page size \(pageSize)")
            }
            #expect(try store.count(matching: filter) == expected.count, "\(name): count")
        }
    }

    @Test("oldest-first order is the exact reverse, and forEach and the async stream visit the same exchanges")
    func ordersAndStreaming() async throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let all = Self.dataSet()
        try store.insert(all)
        let filter = ExchangeFilter(labels: ["screen": "profile"])
        let newest = Self.expected(all) { $0.labels["screen"] == "profile" }
        var oldest: [UUID] = []
        try store.forEach(matching: filter, order: .oldestFirst, pageSize: 6) { oldest.append($0.id) }
        #expect(oldest == Array(newest.reversed()))
        var streamed: [Exchange] = []
        for try await exchange in store.stream(matching: filter, pageSize: 9) { streamed.append(exchange) }
        #expect(streamed.map(\.id) == newest)
        // The streamed exchanges are whole, bodies included.
        let byID = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })
        #expect(streamed.allSatisfy { byID[$0.id] == $0 })
    }

    @Test("exchanges stored while paging do not shift the pages: no gaps, no repeats")
    func stableUnderInserts() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let all = Self.dataSet()
        try store.insert(all)
        var seen: [UUID] = []
        var cursor: ExchangeCursor?
        var extra = 0
        repeat {
            let page = try store.exchanges(limit: 25, after: cursor)
            seen += page.exchanges.map(\.id)
            cursor = page.nextCursor
            // Newer exchanges, and older ones with the same start time as the page's last one.
            extra += 1
            try store.insert([
                ExchangeFixtures.simple(1000 + extra, startedAt: Date()),
                ExchangeFixtures.simple(2000 + extra, startedAt: page.exchanges.last?.startedAt ?? Date()),
            ])
        } while cursor != nil
        let original = Set(all.map(\.id))
        let seenOriginal = seen.filter { original.contains($0) }
        #expect(seenOriginal == Self.expected(all) { _ in true })
        #expect(Set(seen).count == seen.count)
    }

    @Test("a cursor survives its text form exactly; bad tokens and limits are refused")
    func cursorToken() throws {
        let cursor = ExchangeCursor(startedAt: 1_764_000_000.123_456_7, rowid: 42)
        #expect(ExchangeCursor(token: cursor.description) == cursor)
        #expect(ExchangeCursor(token: "zz-1") == nil)
        #expect(ExchangeCursor(token: "12") == nil)
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        #expect(throws: ExchangeStoreError.self) { try store.exchanges(limit: 0) }
    }

    @Test("an exchange is found by a unique ID prefix; an ambiguous or too short prefix is an error")
    func idPrefix() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        var first = ExchangeFixtures.simple(1)
        first.id = try #require(UUID(uuidString: "ABCD1234-0000-4000-8000-000000000001"))
        var second = ExchangeFixtures.simple(2)
        second.id = try #require(UUID(uuidString: "ABCD5678-0000-4000-8000-000000000002"))
        try store.insert([first, second])
        #expect(try store.exchange(idPrefix: "abcd12") == first)
        #expect(try store.exchange(idPrefix: first.id.uuidString.lowercased()) == first)
        #expect(try store.exchange(idPrefix: "ffff") == nil)
        let ambiguous = try #require(throws: ExchangeStoreError.self) { try store.exchange(idPrefix: "ABCD") }
        #expect(ambiguous.description.contains("matches 2 exchanges"))
        #expect(throws: ExchangeStoreError.self) { try store.exchange(idPrefix: "ab") }
        #expect(throws: ExchangeStoreError.self) { try store.exchange(idPrefix: "xyz!") }
    }

    @Test("time-ordered IDs of one minute share their start; the short ID (their end) finds each")
    func shortIDs() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let now = Date()
        let exchanges = (0 ..< 20).map { index -> Exchange in
            var exchange = ExchangeFixtures.simple(index)
            exchange.id = UUID.timeOrdered(at: now)
            return exchange
        }
        try store.insert(exchanges)
        for exchange in exchanges {
            let short = ExchangeStore.shortID(exchange.id)
            #expect(short.count == 8)
            #expect(try store.exchange(shortID: short) == exchange)
            #expect(try store.exchange(shortID: short.lowercased()) == exchange)
            #expect(try store.exchange(shortID: exchange.id.uuidString) == exchange)
        }
        // Same millisecond: the first 12 characters are the same for all twenty.
        let start = String(exchanges[0].id.uuidString.prefix(8))
        let ambiguous = try #require(throws: ExchangeStoreError.self) { try store.exchange(shortID: start) }
        #expect(ambiguous.description == "ID \"\(start)\" matches 20 exchanges; give more characters")
        #expect(try store.exchange(shortID: "0000-000000000000") == nil)
        #expect(throws: ExchangeStoreError.self) { try store.exchange(shortID: "abc") }
    }
}
