import Foundation
import NetTapCapture
import NetTapRules

/// `nettap rules check FILE`: validates a rules file and prints the rules as NetTap understood them.
struct RulesCommand: Command {
    static let spec = CommandSpec(
        name: "rules",
        abstract: "Check a JSON rules file and print the rules as understood.",
        discussion: """
            'nettap rules check FILE' loads FILE exactly as an app (NetTap.shared.rules.load) or
            'nettap fetch --rules FILE' would, including the replay fixtures it names, and prints one
            line per rule. A file that does not load is reported as FILE:LINE:COLUMN: rule, field and
            message, with exit status 1. docs/rules.md describes the format.
            """,
        positionals: [
            .init(name: "check", help: "The action (only 'check')."),
            .init(name: "FILE", help: "The rules file."),
        ]
    )

    let file: URL

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.first == "check" else {
            throw CLIError.usage("unknown action '\(arguments.positionals.first ?? "")'; the action is 'check'", command: Self.spec)
        }
        file = URL(fileURLWithPath: arguments.positionals[1])
    }

    func run() async throws -> Int32 {
        let rules: RuleSet
        do {
            rules = try RuleSet.load(contentsOf: file)
            // Replay fixtures are part of a rules file's meaning: load them too, then put nothing in force.
            try RulesRuntime.shared.install(rules)
            RulesRuntime.shared.clear()
        } catch {
            throw CLIError.failure("\(error)")
        }
        let count = rules.rules.count
        Output.out("\(file.path): \(count) rule\(count == 1 ? "" : "s") OK")
        if count > 0 { Output.out(rules.description) }
        return 0
    }
}
