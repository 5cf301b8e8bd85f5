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

    /// How label conditions are written.
    enum LabelStyle {
        /// `rowid IN (SELECT ...)`: for counts and summaries, which visit every match anyway.
        case subquery
        /// A point lookup per row, for queries that walk exchanges in time order; the label
        /// with this key drives the query instead and is left out.
        case exists(skippingKey: String?)
    }

    /// The SQL condition over `exchanges` (columns qualified with `table`, "" for none) and its
    /// arguments; "1" when the filter is empty.
    func sqlCondition(table: String = "", labels labelStyle: LabelStyle = .subquery) -> (sql: String, arguments: [DatabaseValue]) {
        let column = table.isEmpty ? "" : table + "."
        var terms: [String] = []
        var arguments: [DatabaseValue] = []
        if let since {
            terms.append("\(column)started_at >= ?")
            arguments.append(.real(since.timeIntervalSince1970))
        }
        if let until {
            terms.append("\(column)started_at < ?")
            arguments.append(.real(until.timeIntervalSince1970))
        }
        if let host {
            terms.append("\(column)host = ?")
            arguments.append(.text(host.lowercased()))
        }
        if let method {
            // The collation of `exchanges_by_method`, so that the index serves it.
            terms.append("\(column)method = ? COLLATE NOCASE")
            arguments.append(.text(method))
        }
        if let statusRange {
            terms.append("\(column)status BETWEEN ? AND ?")
            arguments.append(.integer(Int64(statusRange.lowerBound)))
            arguments.append(.integer(Int64(statusRange.upperBound)))
        }
        if let errorCategory {
            terms.append("\(column)error_category = ?")
            arguments.append(.text(errorCategory.rawValue))
        }
        if failuresOnly {
            terms.append("(\(column)status IS NULL OR \(column)status >= 400)")
        }
        for (key, value) in labels.sorted(by: { $0.key < $1.key }) {
            switch labelStyle {
            case .subquery:
                terms.append("\(column)rowid IN (SELECT exchange_rowid FROM exchange_labels WHERE key = ? AND value = ?)")
            case .exists(let skippingKey):
                if key == skippingKey { continue }
                terms.append(
                    """
                    EXISTS (SELECT 1 FROM exchange_labels WHERE key = ? AND value = ? \
                    AND started_at = \(column)started_at AND exchange_rowid = \(column)rowid)
                    """)
            }
            arguments.append(.text(key))
            arguments.append(.text(value))
        }
        if let sessionID {
            terms.append("\(column)session_id = ?")
            arguments.append(.text(sessionID))
        }
        if let urlContains, !urlContains.isEmpty {
            terms.append("instr(lower(\(column)url), ?) > 0")
            arguments.append(.text(urlContains.lowercased()))
        }
        if let capturePath {
            terms.append("\(column)capture_path = ?")
            arguments.append(.text(capturePath.rawValue))
        }
        if let urlTemplate {
            terms.append("\(column)url_template = ?")
            arguments.append(.text(urlTemplate))
        }
        return (terms.isEmpty ? "1" : terms.joined(separator: " AND "), arguments)
    }

    /// The query for one page of (rowid, started_at), newest or oldest first, after `cursor`.
    ///
    /// Only the two keys are selected and sorted, so that a sort (when no index gives the order)
    /// handles small records; the rows themselves are fetched afterwards by rowid. With a label,
    /// the query walks that label's entries, which are kept in time order, instead of the
    /// exchanges.
    func pageQuery(after cursor: ExchangeCursor?, order: ExchangeOrder, limit: Int) -> (sql: String, arguments: [DatabaseValue]) {
        let direction = order == .newestFirst ? "DESC" : "ASC"
        let comparison = order == .newestFirst ? "<" : ">"
        if let driver = labels.min(by: { $0.key < $1.key }) {
            let condition = sqlCondition(table: "e", labels: .exists(skippingKey: driver.key))
            var sql = """
                SELECT l.exchange_rowid, l.started_at FROM exchange_labels l CROSS JOIN exchanges e \
                ON e.rowid = l.exchange_rowid WHERE l.key = ? AND l.value = ? AND \(condition.sql)
                """
            var arguments: [DatabaseValue] = [.text(driver.key), .text(driver.value)] + condition.arguments
            if let cursor {
                sql += " AND (l.started_at, l.exchange_rowid) \(comparison) (?, ?)"
                arguments += [.real(cursor.startedAt), .integer(cursor.rowid)]
            }
            sql += " ORDER BY l.started_at \(direction), l.exchange_rowid \(direction) LIMIT ?"
            return (sql, arguments + [.integer(Int64(limit))])
        }
        let condition = sqlCondition()
        var sql = "SELECT rowid, started_at FROM exchanges WHERE \(condition.sql)"
        var arguments = condition.arguments
        if let cursor {
            sql += " AND (started_at, rowid) \(comparison) (?, ?)"
            arguments += [.real(cursor.startedAt), .integer(cursor.rowid)]
        }
        sql += " ORDER BY started_at \(direction), rowid \(direction) LIMIT ?"
        return (sql, arguments + [.integer(Int64(limit))])
    }
}
