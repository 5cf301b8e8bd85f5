import Foundation
import NetTapCore
import NetTapServer
import NetTapStore

/// What `nettap stats` prints: the summary of the matching exchanges and the store's own figures,
/// as text or (stable keys, absent values `null`) as JSON.
struct StatsReport: Encodable {
    let store: StoreStats
    let summary: ExchangeSummary
    let isFiltered: Bool

    var text: String {
        var rows: [(String, String)] = []
        let total = isFiltered ? " (of \(store.exchangeCount) in the store)" : ""
        rows.append(("Exchanges", "\(summary.count)\(total)"))
        if let first = summary.firstStartedAt, let last = summary.lastStartedAt {
            rows.append(("Oldest", TextFormat.localTime(first)))
            rows.append(("Newest", TextFormat.localTime(last)))
        }
        let classes = summary.statusClasses
        var outcomes = [
            ("1xx", classes.informational), ("2xx", classes.success), ("3xx", classes.redirection),
            ("4xx", classes.clientError), ("5xx", classes.serverError), ("other", classes.other),
        ].filter { $0.1 > 0 || ["2xx", "4xx", "5xx"].contains($0.0) }.map { "\($0.0) \($0.1)" }
        outcomes.append("no response \(summary.noResponse)")
        rows.append(("Status", outcomes.joined(separator: ", ")))
        rows.append(("Failures", "\(summary.failures)"))
        if !summary.errorsByCategory.isEmpty {
            rows.append((
                "Errors",
                summary.errorsByCategory.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.key) \($0.value)" }
                    .joined(separator: ", ")
            ))
        }
        rows.append((
            "Bytes",
            "\(TextFormat.bytes(summary.requestBytes)) sent, \(TextFormat.bytes(summary.responseBytes)) received"
        ))
        rows.append(("Average", TextFormat.duration(summary.averageDuration)))
        var lines = rows.map { TextFormat.padded($0.0, to: 11) + $0.1 }
        if !summary.slowest.isEmpty {
            lines.append("Slowest")
            let durations = summary.slowest.map { TextFormat.duration($0.duration) }
            let width = durations.map(\.count).max() ?? 0
            for (slow, duration) in zip(summary.slowest, durations) {
                let pad = String(repeating: " ", count: width - duration.count)
                let status = slow.status.map(String.init) ?? "-"
                lines.append("  \(pad)\(duration)  \(slow.method) \(status) \(slow.url)  \(ExchangeTable.shortID(slow.id))")
            }
        }
        lines.append("")
        lines.append(TextFormat.padded("Store", to: 11) + "\(store.path) (schema \(store.schemaVersion))")
        lines.append(
            TextFormat.padded("File", to: 11)
                + "\(TextFormat.bytes(store.fileBytes)) on disk, \(TextFormat.bytes(store.usedBytes)) in use")
        lines.append(
            TextFormat.padded("Bodies", to: 11)
                + "\(store.bodyCount) distinct, \(TextFormat.bytes(store.bodyBytes)) (\(TextFormat.bytes(store.storedBodyBytes)) stored)")
        if store.droppedEvents > 0 {
            lines.append(TextFormat.padded("Dropped", to: 11) + "\(store.droppedEvents) exchanges (capture outran the store)")
        }
        return lines.joined(separator: "\n")
    }

    private enum CodingKeys: String, CodingKey {
        case exchanges, oldest, newest, statusClasses, noResponse, failures, errors, requestBytes, responseBytes
        case averageDuration, slowest, store
    }

    private enum ClassKeys: String, CodingKey {
        case informational = "1xx", success = "2xx", redirection = "3xx", clientError = "4xx", serverError = "5xx", other
    }
    private enum SlowKeys: String, CodingKey { case id, method, url, status, duration, startedAt }
    private enum StoreKeys: String, CodingKey {
        case path, schemaVersion, exchanges, fileBytes, usedBytes, bodies, bodyBytes, storedBodyBytes, droppedEvents
        case oldest, newest
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(summary.count, forKey: .exchanges)
        try container.encode(summary.firstStartedAt.map(ExchangeJSON.formatDate), forKey: .oldest)
        try container.encode(summary.lastStartedAt.map(ExchangeJSON.formatDate), forKey: .newest)
        var classes = container.nestedContainer(keyedBy: ClassKeys.self, forKey: .statusClasses)
        try classes.encode(summary.statusClasses.informational, forKey: .informational)
        try classes.encode(summary.statusClasses.success, forKey: .success)
        try classes.encode(summary.statusClasses.redirection, forKey: .redirection)
        try classes.encode(summary.statusClasses.clientError, forKey: .clientError)
        try classes.encode(summary.statusClasses.serverError, forKey: .serverError)
        try classes.encode(summary.statusClasses.other, forKey: .other)
        try container.encode(summary.noResponse, forKey: .noResponse)
        try container.encode(summary.failures, forKey: .failures)
        try container.encode(summary.errorsByCategory, forKey: .errors)
        try container.encode(summary.requestBytes, forKey: .requestBytes)
        try container.encode(summary.responseBytes, forKey: .responseBytes)
        try container.encode(summary.averageDuration, forKey: .averageDuration)
        var slowest = container.nestedUnkeyedContainer(forKey: .slowest)
        for slow in summary.slowest {
            var item = slowest.nestedContainer(keyedBy: SlowKeys.self)
            try item.encode(slow.id.uuidString, forKey: .id)
            try item.encode(slow.method, forKey: .method)
            try item.encode(slow.url, forKey: .url)
            try item.encode(slow.status, forKey: .status)
            try item.encode(slow.duration, forKey: .duration)
            try item.encode(ExchangeJSON.formatDate(slow.startedAt), forKey: .startedAt)
        }
        var file = container.nestedContainer(keyedBy: StoreKeys.self, forKey: .store)
        try file.encode(store.path, forKey: .path)
        try file.encode(store.schemaVersion, forKey: .schemaVersion)
        try file.encode(store.exchangeCount, forKey: .exchanges)
        try file.encode(store.fileBytes, forKey: .fileBytes)
        try file.encode(store.usedBytes, forKey: .usedBytes)
        try file.encode(store.bodyCount, forKey: .bodies)
        try file.encode(store.bodyBytes, forKey: .bodyBytes)
        try file.encode(store.storedBodyBytes, forKey: .storedBodyBytes)
        try file.encode(store.droppedEvents, forKey: .droppedEvents)
        try file.encode(store.oldest.map(ExchangeJSON.formatDate), forKey: .oldest)
        try file.encode(store.newest.map(ExchangeJSON.formatDate), forKey: .newest)
    }
}
