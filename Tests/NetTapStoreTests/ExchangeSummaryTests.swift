import Foundation
import NetTapCore
import Testing

@testable import NetTapStore

@Suite("ExchangeStore summary and stats")
struct ExchangeSummaryTests {
    @Test("summary counts status classes, failures, errors and bytes, and lists the slowest, as computed from the data")
    func summaryNumbers() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let all = ExchangeFilterTests.dataSet()
        try store.insert(all)
        for filter in [ExchangeFilter(), ExchangeFilter(host: "api.example.com"), ExchangeFilter(labels: ["screen": "home"])] {
            let matching = all.filter { exchange in
                (filter.host.map { exchange.request.host == $0 } ?? true)
                    && filter.labels.allSatisfy { exchange.labels[$0.key] == $0.value }
            }
            let summary = try store.summary(matching: filter, slowest: 5)
            #expect(summary.count == matching.count)
            func statusCount(_ range: ClosedRange<Int>) -> Int {
                matching.filter { $0.response.map { range.contains($0.statusCode) } ?? false }.count
            }
            #expect(summary.statusClasses.success == statusCount(200 ... 299))
            #expect(summary.statusClasses.redirection == statusCount(300 ... 399))
            #expect(summary.statusClasses.clientError == statusCount(400 ... 499))
            #expect(summary.statusClasses.serverError == statusCount(500 ... 599))
            #expect(summary.statusClasses.informational == 0)
            #expect(summary.noResponse == matching.filter { $0.response == nil }.count)
            #expect(summary.failures == matching.filter(\.isFailure).count)
            var errors: [String: Int] = [:]
            for exchange in matching { if let error = exchange.error { errors[error.category.rawValue, default: 0] += 1 } }
            #expect(summary.errorsByCategory == errors)
            #expect(summary.responseBytes == matching.compactMap { $0.response?.body?.size }.reduce(0, +))
            #expect(summary.requestBytes == 0)
            #expect(summary.totalBytes == summary.responseBytes)
            let slowest = matching.enumerated().filter { $0.element.duration != nil }
                .sorted { ($0.element.duration ?? 0, $0.offset) > ($1.element.duration ?? 0, $1.offset) }
                .prefix(5).map(\.element.id)
            #expect(summary.slowest.map(\.id) == Array(slowest))
            #expect(summary.firstStartedAt == matching.map(\.startedAt).min())
            #expect(summary.lastStartedAt == matching.map(\.startedAt).max())
            let durations = matching.compactMap(\.duration)
            let mean = durations.reduce(0, +) / Double(durations.count)
            #expect(abs((summary.averageDuration ?? -1) - mean) < 1e-9)
        }
    }

    @Test("summary of an empty store")
    func emptySummary() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let summary = try store.summary()
        #expect(summary == ExchangeSummary())
        #expect(summary.averageDuration == nil)
    }

    @Test("stats report counts, sizes, the time span and the path")
    func stats() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let empty = try store.stats()
        #expect(empty.exchangeCount == 0)
        #expect(empty.oldest == nil)
        let shared = Data(repeating: 9, count: 5000)
        let exchanges = (0 ..< 10).map { ExchangeFixtures.simple($0, responseBody: $0 % 2 == 0 ? shared : Data("b\($0)".utf8)) }
        try store.insert(exchanges)
        let stats = try store.stats()
        #expect(stats.path == directory.storePath)
        #expect(stats.schemaVersion == ExchangeStore.schemaVersion)
        #expect(stats.exchangeCount == 10)
        #expect(stats.bodyCount == 6)  // one shared + five distinct
        let distinctSmall: [Int64] = (1 ..< 10).filter { $0 % 2 == 1 }.map { Int64("b\($0)".utf8.count) }
        #expect(stats.bodyBytes == 5000 + distinctSmall.reduce(0, +))
        #expect(stats.storedBodyBytes < stats.bodyBytes)
        #expect(stats.oldest == exchanges.first?.startedAt)
        #expect(stats.newest == exchanges.last?.startedAt)
        #expect(stats.usedBytes > 0)
        #expect(stats.fileBytes >= stats.usedBytes / 2)
        #expect(stats.droppedEvents == 0)
    }
}
