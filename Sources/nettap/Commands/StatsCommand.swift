import Foundation
import NetTapCore
import NetTapStore

/// `nettap stats`: what the store holds, and how the matching exchanges went.
struct StatsCommand: Command {
    static let spec = CommandSpec(
        name: "stats",
        abstract: "Summarize stored exchanges: outcomes, errors, bytes, the slowest.",
        discussion: """
            Counts by status class and error category, body bytes sent and received, average
            duration, the slowest exchanges, the first and last start, and the store file itself.
            Filters narrow the exchanges counted; the store figures are always for the whole file.

            Examples:
              nettap stats
              nettap stats --host api.example.com --since 1d --slowest 10
              nettap stats --json | jq .statusClasses
            """,
        options: FilterOptions.options + [
            .init(names: ["--slowest"], valueName: "N", help: "List the N slowest exchanges (default 5, 0 for none)."),
            .init(names: ["--json"], help: "Print the figures as JSON."),
            StoreOption.option,
        ]
    )

    let storePath: String
    let filter: ExchangeFilter
    let slowest: Int
    let asJSON: Bool

    init(_ arguments: ParsedArguments) throws {
        storePath = StoreOption.path(arguments)
        filter = try FilterOptions.filter(from: arguments)
        slowest = try arguments.int("--slowest") ?? 5
        guard slowest >= 0 else { throw CLIError.usage("option '--slowest' must not be negative", command: Self.spec) }
        asJSON = arguments.flag("--json")
    }

    func run() async throws -> Int32 {
        let store = try StoreOption.open(path: storePath, create: false)
        let report = StatsReport(
            store: try store.stats(), summary: try store.summary(matching: filter, slowest: slowest),
            isFiltered: filter != ExchangeFilter())
        if asJSON {
            try JSONPrinter.print(report)
        } else {
            Output.out(report.text)
        }
        return 0
    }
}
