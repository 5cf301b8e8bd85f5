import Foundation
import NetTapCore
import NetTapStore

/// Exchanges as an aligned text table, one per line: `nettap list` and `nettap demo`.
struct ExchangeTable: Sendable {
    struct Column: Sendable {
        var title: String
        var rightAligned = false
        var value: @Sendable (Exchange) -> String
    }

    var columns: [Column]

    /// Characters of host and path shown before the column is cut with `…`.
    static let locationWidth = 72

    /// `nettap list`: when, what, how it went, and the short id for `nettap show`.
    static let list = ExchangeTable(columns: [
        Column(title: "TIME") { TextFormat.localTime($0.startedAt) },
        Column(title: "METHOD") { $0.request.method },
        Column(title: "STATUS") { outcome($0) },
        Column(title: "DURATION", rightAligned: true) { TextFormat.duration($0.duration) },
        Column(title: "SIZE", rightAligned: true) { exchange in TextFormat.bytes(exchange.response.map { ListRow.size($0.body) } ?? nil) },
        Column(title: "URL") { TextFormat.truncated(location($0.request.url), to: locationWidth) },
        Column(title: "ID") { shortID($0.id) },
    ])

    /// `nettap demo`: which capture path saw it, and what labels and rules say about it.
    static let demo = ExchangeTable(columns: [
        Column(title: "PATH") { $0.capturePath.rawValue },
        Column(title: "METHOD") { $0.request.method },
        Column(title: "URL") { TextFormat.truncated(location($0.request.url), to: 44) },
        Column(title: "STATUS") { outcome($0) },
        Column(title: "DURATION", rightAligned: true) { TextFormat.duration($0.duration) },
        Column(title: "SIZE", rightAligned: true) { exchange in TextFormat.bytes(exchange.response.map { ListRow.size($0.body) } ?? nil) },
        Column(title: "NOTES") { notes(for: $0) },
    ])

    func render(_ exchanges: [Exchange]) -> String {
        let header = columns.map(\.title)
        let rows = exchanges.map { exchange in columns.map { $0.value(exchange) } }
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        return ([header] + rows).map { row in
            row.indices.map { column -> String in
                let cell = row[column]
                if column == row.count - 1 { return cell }
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return columns[column].rightAligned ? pad + cell : cell + pad
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// The status code, else the error category, else `-` (still in flight when captured).
    static func outcome(_ exchange: Exchange) -> String {
        if let status = exchange.response?.statusCode { return String(status) }
        return exchange.error?.category.rawValue ?? "-"
    }

    /// `host[:port]/path?query`: the URL without its scheme.
    static func location(_ url: String) -> String {
        guard let range = url.range(of: "://") else { return url }
        return String(url[range.upperBound...])
    }

    /// The first 8 characters of the ID: enough for `nettap show` in any store of ordinary size.
    static func shortID(_ id: UUID) -> String {
        ExchangeStore.shortID(id)
    }

    /// Labels, redirects, the rules that changed it, and whether secrets were redacted.
    static func notes(for exchange: Exchange) -> String {
        var notes: [String] = []
        if !exchange.labels.isEmpty {
            notes.append(exchange.labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ","))
        }
        if !exchange.redirects.isEmpty { notes.append("redirected") }
        for modification in exchange.modifications where modification.action != "skipped" {
            notes.append("\(modification.action) by \"\(modification.rule)\"")
        }
        if exchange.request.body?.isRedacted == true || exchange.response?.body?.isRedacted == true {
            notes.append("secrets redacted")
        }
        return notes.joined(separator: "; ")
    }
}
