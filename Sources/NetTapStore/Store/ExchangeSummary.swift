import Foundation
import NetTapCore

/// Numbers about a set of exchanges: how many, how they ended, how many bytes, the slowest.
///
/// ```swift
/// let summary = try store.summary(matching: ExchangeFilter(host: "api.example.com"), slowest: 5)
/// print(summary.count, summary.statusClasses.serverError, summary.slowest.first?.url ?? "-")
/// ```
public struct ExchangeSummary: Sendable, Hashable, Codable {
    /// Exchanges per response status class.
    public struct StatusClasses: Sendable, Hashable, Codable {
        /// 1xx.
        public var informational = 0
        /// 2xx.
        public var success = 0
        /// 3xx.
        public var redirection = 0
        /// 4xx.
        public var clientError = 0
        /// 5xx.
        public var serverError = 0
        /// A response with a status outside 100...599.
        public var other = 0

        public init() {}
    }

    /// One of the slowest exchanges.
    public struct SlowExchange: Sendable, Hashable, Codable {
        public var id: UUID
        public var method: String
        public var url: String
        public var status: Int?
        public var duration: TimeInterval
        public var startedAt: Date
    }

    public var count = 0
    public var statusClasses = StatusClasses()
    /// Exchanges that ended without a response (an error).
    public var noResponse = 0
    /// Exchanges with status 400 or above, or no response.
    public var failures = 0
    /// Exchanges per error category (the raw values of `ErrorCategory`).
    public var errorsByCategory: [String: Int] = [:]
    /// Body bytes as sent and received (original sizes, not the captured part).
    public var requestBytes: Int64 = 0
    public var responseBytes: Int64 = 0
    /// The mean duration of the exchanges whose duration is known.
    public var averageDuration: TimeInterval?
    public var firstStartedAt: Date?
    public var lastStartedAt: Date?
    /// The slowest exchanges, slowest first.
    public var slowest: [SlowExchange] = []

    public init() {}

    /// Request and response bytes together.
    public var totalBytes: Int64 { requestBytes + responseBytes }
}

extension ExchangeStore {
    /// Counts, bytes and the `slowest` slowest of the matching exchanges, from one snapshot.
    ///
    /// Without a filter, or with only a time range or status, every column it reads is in
    /// `exchanges_by_time`, so SQLite scans that index instead of the rows.
    public func summary(matching filter: ExchangeFilter = ExchangeFilter(), slowest: Int = 10) throws -> ExchangeSummary {
        let condition = filter.sqlCondition()
        return try queue.read { db in
            var summary = ExchangeSummary()
            let totals = """
                SELECT count(*), \
                total(status BETWEEN 100 AND 199), total(status BETWEEN 200 AND 299), \
                total(status BETWEEN 300 AND 399), total(status BETWEEN 400 AND 499), \
                total(status BETWEEN 500 AND 599), total(status < 100 OR status > 599), \
                total(status IS NULL), total(status IS NULL OR status >= 400), \
                total(request_size), total(response_size), avg(duration), min(started_ref), max(started_ref) \
                FROM exchanges WHERE \(condition.sql)
                """
            try db.cachedStatement(totals).forEachRow(condition.arguments) { row in
                summary.count = row.int(at: 0)
                summary.statusClasses.informational = row.int(at: 1)
                summary.statusClasses.success = row.int(at: 2)
                summary.statusClasses.redirection = row.int(at: 3)
                summary.statusClasses.clientError = row.int(at: 4)
                summary.statusClasses.serverError = row.int(at: 5)
                summary.statusClasses.other = row.int(at: 6)
                summary.noResponse = row.int(at: 7)
                summary.failures = row.int(at: 8)
                summary.requestBytes = row.int64(at: 9)
                summary.responseBytes = row.int64(at: 10)
                summary.averageDuration = row.optionalDouble(at: 11)
                summary.firstStartedAt = row.optionalDouble(at: 12).map(Date.init(timeIntervalSinceReferenceDate:))
                summary.lastStartedAt = row.optionalDouble(at: 13).map(Date.init(timeIntervalSinceReferenceDate:))
            }
            let errors = """
                SELECT error_category, count(*) FROM exchanges \
                WHERE error_category IS NOT NULL AND \(condition.sql) GROUP BY error_category
                """
            try db.cachedStatement(errors).forEachRow(condition.arguments) { row in
                summary.errorsByCategory[row.string(at: 0) ?? ""] = row.int(at: 1)
            }
            if slowest > 0 {
                // The ranking reads only rowid and duration, which `exchanges_by_time` holds;
                // the rows are fetched for the few that make it.
                let slow = """
                    SELECT id, method, url, status, duration, started_ref FROM exchanges WHERE rowid IN \
                    (SELECT rowid FROM exchanges WHERE duration IS NOT NULL AND \(condition.sql) \
                    ORDER BY duration DESC, rowid DESC LIMIT ?) ORDER BY duration DESC, rowid DESC
                    """
                try db.cachedStatement(slow).forEachRow(condition.arguments + [.integer(Int64(slowest))]) { row in
                    guard let id = row.string(at: 0).flatMap(UUID.init(uuidString:)) else {
                        throw ExchangeStoreError.corrupt("exchanges: id \(row.string(at: 0) ?? "NULL") is not a UUID")
                    }
                    summary.slowest.append(
                        ExchangeSummary.SlowExchange(
                            id: id, method: row.string(at: 1) ?? "", url: row.string(at: 2) ?? "",
                            status: row.optionalInt64(at: 3).map(Int.init), duration: row.double(at: 4),
                            startedAt: Date(timeIntervalSinceReferenceDate: row.double(at: 5))))
                }
            }
            return summary
        }
    }
}
