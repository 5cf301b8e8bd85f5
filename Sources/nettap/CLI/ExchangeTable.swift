import Foundation
import NetTapCore

/// Renders exchanges as a fixed-width text table for the terminal.
struct ExchangeTable: Sendable {
    struct Column: Sendable {
        var title: String
        var width: Int
        var value: @Sendable (Exchange) -> String
    }

    var columns: [Column]

    /// The columns `nettap demo` and `nettap list` show.
    static let standard = ExchangeTable(columns: [
        Column(title: "PATH", width: 8) { $0.capturePath.rawValue },
        Column(title: "METHOD", width: 6) { $0.request.method },
        Column(title: "URL", width: 38) { displayURL($0.request.url) },
        Column(title: "RESULT", width: 14) { result(of: $0) },
        Column(title: "TIME", width: 8) { $0.duration.map { String(format: "%.0f ms", $0 * 1000) } ?? "-" },
        Column(title: "SIZE", width: 9) { size(of: $0) },
        Column(title: "NOTES", width: 0) { notes(for: $0) },
    ])

    func render(_ exchanges: [Exchange]) -> String {
        var lines = [row(columns.map(\.title))]
        for exchange in exchanges {
            lines.append(row(columns.map { $0.value(exchange) }))
        }
        return lines.joined(separator: "\n")
    }

    private func row(_ values: [String]) -> String {
        zip(columns, values).map { column, value in
            guard column.width > 0 else { return value }
            let clipped = value.count > column.width ? String(value.prefix(column.width - 1)) + "…" : value
            return clipped + String(repeating: " ", count: column.width - clipped.count)
        }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
    }

    static func displayURL(_ url: String) -> String {
        guard let components = URLComponents(string: url) else { return url }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        let query = components.percentEncodedQuery.map { "?" + $0 } ?? ""
        return (components.host ?? "") + path + query
    }

    static func result(of exchange: Exchange) -> String {
        if let response = exchange.response { return String(response.statusCode) }
        if let error = exchange.error { return error.category.rawValue }
        return "-"
    }

    static func size(of exchange: Exchange) -> String {
        guard let size = exchange.response?.body?.size else { return "-" }
        if size < 1024 { return "\(size) B" }
        return String(format: "%.1f KiB", Double(size) / 1024)
    }

    static func notes(for exchange: Exchange) -> String {
        var notes: [String] = []
        if !exchange.labels.isEmpty {
            notes.append(exchange.labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ","))
        }
        if !exchange.redirects.isEmpty { notes.append("redirected") }
        for modification in exchange.modifications where modification.action != "skipped" {
            notes.append("\(modification.action) by \"\(modification.rule)\"")
        }
        if exchange.request.body?.isRedacted == true || exchange.response?.body?.isRedacted == true { notes.append("secrets redacted") }
        return notes.joined(separator: "; ")
    }
}
