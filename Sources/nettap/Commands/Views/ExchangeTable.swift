import Foundation
import NetTapCore

/// The table of `nettap list`: aligned columns, one exchange per line.
enum ExchangeTable {
    /// Characters of host and path shown before the column is cut with `…`.
    static let locationWidth = 72

    static func render(_ exchanges: [Exchange]) -> String {
        let header = ["TIME", "METHOD", "STATUS", "DURATION", "SIZE", "URL", "ID"]
        let rows = exchanges.map { exchange in
            [
                TextFormat.localTime(exchange.startedAt),
                exchange.request.method,
                outcome(exchange),
                TextFormat.duration(exchange.duration),
                TextFormat.bytes(exchange.response.map { ListRow.size($0.body) } ?? nil),
                TextFormat.truncated(location(exchange.request.url), to: locationWidth),
                shortID(exchange.id),
            ]
        }
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        // Numbers read best right-aligned.
        let rightAligned: Set<Int> = [3, 4]
        return ([header] + rows).map { row in
            row.indices.map { column -> String in
                let cell = row[column]
                if column == row.count - 1 { return cell }
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return rightAligned.contains(column) ? pad + cell : cell + pad
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
        String(id.uuidString.prefix(8))
    }
}
