import Foundation
import NetTapCore
import Testing

@testable import NetTapStore

/// docs/schema.md must describe the schema the store really creates, and its example queries
/// must run.
@Suite("docs/schema.md")
struct SchemaDocumentationTests {
    static func document() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("docs/schema.md"), encoding: .utf8)
    }

    /// The ```sql blocks of the document.
    static func exampleQueries(_ text: String) -> [String] {
        text.components(separatedBy: "```sql\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
    }

    @Test("every example query runs against a real store and the ones that list rows return some")
    func examplesRun() throws {
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let now = Date()
        var exchanges = (0 ..< 50).map {
            ExchangeFixtures.simple(
                $0, status: $0 % 5 == 0 ? 500 : 200, startedAt: now.addingTimeInterval(-Double($0)),
                labels: ["screen": $0 % 2 == 0 ? "checkout" : "home"])
        }
        exchanges.append(ExchangeFixtures.rich(startedAt: now))
        // The same call again 0.3 s later, for the duplicate-call example.
        var again = exchanges[3]
        again.id = UUID()
        again.startedAt = exchanges[3].startedAt.addingTimeInterval(0.3)
        exchanges.append(again)
        try store.insert(exchanges)
        let queries = Self.exampleQueries(try Self.document())
        #expect(queries.count >= 8)
        let id = exchanges[0].id.uuidString
        for query in queries {
            let sql = query.replacingOccurrences(of: "'3F2A...'", with: "'\(id)'")
                .replacingOccurrences(of: "'E0C6...'", with: "'session-1'")
            var rows = 0
            try store.withDatabase { db in try db.prepare(sql).forEachRow { _ in rows += 1 } }
            if !sql.contains("encoding = 'identity'") {
                #expect(rows > 0, "no rows from example:\n\(sql)")
            }
        }
    }

    @Test("every table and column of the schema is documented")
    func columnsDocumented() throws {
        let text = try Self.document()
        let directory = try TemporaryDirectory()
        let store = try ExchangeStore(path: directory.storePath)
        let columns = try store.withDatabase { db -> [(String, String)] in
            var columns: [(String, String)] = []
            for table in ["exchanges", "exchange_labels", "bodies", "meta"] {
                try db.prepare("SELECT name FROM pragma_table_xinfo(?)").forEachRow([.text(table)]) { row in
                    columns.append((table, row.string(at: 0) ?? ""))
                }
            }
            return columns
        }
        #expect(columns.count > 30)
        for (table, column) in columns {
            #expect(text.contains("### `\(table)`"), "table \(table) is not documented")
            #expect(text.contains("`\(column)`"), "column \(table).\(column) is not documented")
        }
        #expect(text.contains("schema version \(ExchangeStore.schemaVersion)"))
        let indexes = try store.withDatabase { db -> [String] in
            var names: [String] = []
            try db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL").forEachRow { row in
                names.append(row.string(at: 0) ?? "")
            }
            return names
        }
        #expect(indexes.count >= 7)
        for index in indexes {
            #expect(text.contains("`\(index)`"), "index \(index) is not documented")
        }
    }
}
