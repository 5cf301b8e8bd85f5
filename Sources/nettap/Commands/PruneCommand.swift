import Foundation
import NetTapStore

/// `nettap prune`: removes the oldest exchanges until the store is within the given limits.
struct PruneCommand: Command {
    static let spec = CommandSpec(
        name: "prune",
        abstract: "Remove the oldest exchanges beyond an age, a size or a count.",
        discussion: """
            Removes the oldest exchanges (with their labels and the bodies no other exchange uses)
            until every given limit is met, in small transactions, and gives the freed space back
            to the file system. At least one limit is required.

            Examples:
              nettap prune --older-than 7d
              nettap prune --max-size 200MB --max-count 100000
            """,
        options: [
            .init(names: ["--older-than"], valueName: "AGE", help: "Remove exchanges that started longer ago than AGE (30m, 12h, 7d, 2w)."),
            .init(names: ["--max-size"], valueName: "SIZE", help: "Keep the database pages in use within SIZE (200MB, 1.5GB, 512MiB)."),
            .init(names: ["--max-count"], valueName: "N", help: "Keep at most N exchanges."),
            .init(names: ["--json"], help: "Print what was removed as JSON."),
            StoreOption.option,
        ]
    )

    let storePath: String
    let maxAge: TimeInterval?
    let maxSize: Int64?
    let maxCount: Int?
    let asJSON: Bool

    init(_ arguments: ParsedArguments) throws {
        storePath = StoreOption.path(arguments)
        maxAge = try Self.parse(arguments, "--older-than", RetentionPolicy.parseAge)
        maxSize = try Self.parse(arguments, "--max-size", RetentionPolicy.parseSize)
        maxCount = try arguments.int("--max-count")
        if let maxCount, maxCount < 0 {
            throw CLIError.usage("option '--max-count' must not be negative, not \(maxCount)", command: Self.spec)
        }
        guard maxAge != nil || maxSize != nil || maxCount != nil else {
            throw CLIError.usage("give at least one limit: --older-than, --max-size or --max-count", command: Self.spec)
        }
        asJSON = arguments.flag("--json")
    }

    private static func parse<T>(_ arguments: ParsedArguments, _ name: String, _ parse: (String) throws -> T) throws -> T? {
        guard let text = arguments.value(name) else { return nil }
        do {
            return try parse(text)
        } catch {
            throw CLIError.usage("option '\(name)': \(error)", command: spec)
        }
    }

    func run() async throws -> Int32 {
        let store = try StoreOption.open(path: storePath, create: false)
        let cutoff = maxAge.map { Date().addingTimeInterval(-$0) }
        let progress = ProgressLine()
        let result: PruneResult
        do {
            defer { progress.clear() }
            result = try store.prune(olderThan: cutoff, maxSize: maxSize, maxCount: maxCount) { soFar in
                progress.update("pruning: \(soFar.removedExchanges) exchanges removed")
            }
        }
        let remaining = try store.count()
        if asJSON {
            try JSONPrinter.print(PruneReport(result: result, remaining: remaining))
            return 0
        }
        if result.removedExchanges == 0 {
            Output.out("Nothing to remove: the store is within the limits (\(remaining) exchanges).")
        } else {
            Output.out(
                "Removed \(result.removedExchanges) exchange\(result.removedExchanges == 1 ? "" : "s") and "
                    + "\(result.removedBodies) bod\(result.removedBodies == 1 ? "y" : "ies"); \(remaining) remain. "
                    + "In use: \(TextFormat.bytes(result.usedBytesBefore)) -> \(TextFormat.bytes(result.usedBytesAfter)).")
        }
        return 0
    }
}
