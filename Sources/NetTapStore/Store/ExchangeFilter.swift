import Foundation
import NetTapCore

/// Which exchanges a query, a summary, an export or a prune looks at. Every field left nil (or
/// empty) matches everything; the fields that are set must all match.
///
/// ```swift
/// var filter = ExchangeFilter()
/// filter.since = Date().addingTimeInterval(-3600)
/// filter.host = "api.example.com"
/// filter.labels = ["screen": "checkout"]
/// filter.statusRange = 400 ... 599
/// ```
public struct ExchangeFilter: Sendable, Hashable, Codable {
    /// Started at or after this instant.
    public var since: Date?
    /// Started before this instant.
    public var until: Date?
    /// The request URL's host, compared without case.
    public var host: String?
    /// The request method, compared without case.
    public var method: String?
    /// Response status within this range; exchanges without a response never match.
    public var statusRange: ClosedRange<Int>?
    /// Ended with an error of this category.
    public var errorCategory: ErrorCategory?
    /// Only exchanges that failed: status 400 or above, or no response at all.
    public var failuresOnly: Bool
    /// Every one of these labels, with exactly this value.
    public var labels: [String: String]
    /// The capture session.
    public var sessionID: String?
    /// Text the request URL contains, compared without case (ASCII).
    public var urlContains: String?
    /// Which mechanism captured the exchange.
    public var capturePath: CapturePath?
    /// The endpoint template of the path (`/users/{id}`), as `URLTemplate` makes it.
    public var urlTemplate: String?

    public init(
        since: Date? = nil, until: Date? = nil, host: String? = nil, method: String? = nil,
        statusRange: ClosedRange<Int>? = nil, errorCategory: ErrorCategory? = nil, failuresOnly: Bool = false,
        labels: [String: String] = [:], sessionID: String? = nil, urlContains: String? = nil,
        capturePath: CapturePath? = nil, urlTemplate: String? = nil
    ) {
        self.since = since
        self.until = until
        self.host = host
        self.method = method
        self.statusRange = statusRange
        self.errorCategory = errorCategory
        self.failuresOnly = failuresOnly
        self.labels = labels
        self.sessionID = sessionID
        self.urlContains = urlContains
        self.capturePath = capturePath
        self.urlTemplate = urlTemplate
    }

    /// The SQL condition (over `exchanges`) and its arguments; "1" when the filter is empty.
    func sqlCondition() -> (sql: String, arguments: [DatabaseValue]) {
        var terms: [String] = []
        var arguments: [DatabaseValue] = []
        if let since {
            terms.append("started_at >= ?")
            arguments.append(.real(since.timeIntervalSince1970))
        }
        if let until {
            terms.append("started_at < ?")
            arguments.append(.real(until.timeIntervalSince1970))
        }
        if let host {
            terms.append("host = ?")
            arguments.append(.text(host.lowercased()))
        }
        if let method {
            terms.append("upper(method) = ?")
            arguments.append(.text(method.uppercased()))
        }
        if let statusRange {
            terms.append("status BETWEEN ? AND ?")
            arguments.append(.integer(Int64(statusRange.lowerBound)))
            arguments.append(.integer(Int64(statusRange.upperBound)))
        }
        if let errorCategory {
            terms.append("error_category = ?")
            arguments.append(.text(errorCategory.rawValue))
        }
        if failuresOnly {
            terms.append("(status IS NULL OR status >= 400)")
        }
        for (key, value) in labels.sorted(by: { $0.key < $1.key }) {
            terms.append("rowid IN (SELECT exchange_rowid FROM exchange_labels WHERE key = ? AND value = ?)")
            arguments.append(.text(key))
            arguments.append(.text(value))
        }
        if let sessionID {
            terms.append("session_id = ?")
            arguments.append(.text(sessionID))
        }
        if let urlContains, !urlContains.isEmpty {
            terms.append("instr(lower(url), ?) > 0")
            arguments.append(.text(urlContains.lowercased()))
        }
        if let capturePath {
            terms.append("capture_path = ?")
            arguments.append(.text(capturePath.rawValue))
        }
        if let urlTemplate {
            terms.append("url_template = ?")
            arguments.append(.text(urlTemplate))
        }
        return (terms.isEmpty ? "1" : terms.joined(separator: " AND "), arguments)
    }
}
