import Foundation
import NetTapCore
import NetTapStore

/// `nettap list`: the stored exchanges, newest first, one line each, a page at a time.
struct ListCommand: Command {
    static let spec = CommandSpec(
        name: "list",
        abstract: "List stored exchanges, newest first.",
        discussion: """
            One line per exchange: local start time, method, status (or the error category when no
            response came), duration, response body size, host and path, and the short ID that
            'nettap show' takes. When more exchanges match than --limit, the last line gives the
            cursor of the next page: repeat the command with --after CURSOR.

            Examples:
              nettap list --since 15m --failures
              nettap list --host api.example.com --status 5xx --limit 20
              nettap list --label screen=checkout --json
            """,
        options: FilterOptions.options + [
            .init(names: ["--limit"], valueName: "N", help: "Show at most N exchanges (default 50)."),
            .init(names: ["--after"], valueName: "CURSOR", help: "Continue after the page that printed CURSOR."),
            .init(names: ["--json"], help: "Print the page as JSON: {\"exchanges\": [...], \"nextCursor\": ...}."),
            StoreOption.option,
        ]
    )

    static let defaultLimit = 50

    let storePath: String
    let filter: ExchangeFilter
    let limit: Int
    let cursor: ExchangeCursor?
    let asJSON: Bool

    init(_ arguments: ParsedArguments) throws {
        storePath = StoreOption.path(arguments)
        filter = try FilterOptions.filter(from: arguments)
        limit = try arguments.int("--limit") ?? Self.defaultLimit
        guard limit > 0 else { throw CLIError.usage("option '--limit' must be at least 1, not \(limit)", command: Self.spec) }
        if let token = arguments.value("--after") {
            guard let cursor = ExchangeCursor(token: token) else {
                throw CLIError.usage(
                    "option '--after' expects a cursor printed by 'nettap list', not '\(token)'", command: Self.spec)
            }
            self.cursor = cursor
        } else {
            cursor = nil
        }
        asJSON = arguments.flag("--json")
    }

    func run() async throws -> Int32 {
        let store = try StoreOption.open(path: storePath, create: false)
        var page = try store.exchanges(matching: filter, limit: limit, after: cursor, includeBodies: false)
        // The store hands out a cursor whenever a page is full; only offer it when a next page exists.
        if let next = page.nextCursor,
            try store.exchanges(matching: filter, limit: 1, after: next, includeBodies: false).exchanges.isEmpty
        {
            page.nextCursor = nil
        }
        if asJSON {
            try JSONPrinter.print(ListPage(exchanges: page.exchanges.map(ListRow.init), nextCursor: page.nextCursor?.description))
            return 0
        }
        guard !page.exchanges.isEmpty else {
            Output.out(cursor == nil ? "No exchanges." : "No more exchanges.")
            return 0
        }
        Output.out(ExchangeTable.list.render(page.exchanges))
        if let next = page.nextCursor {
            Output.out("next page: --after \(next)")
        }
        return 0
    }
}
