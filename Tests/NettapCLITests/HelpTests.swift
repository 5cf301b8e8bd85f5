import Foundation
import Testing

/// `--help` on every command: exit 0, usage on stdout, every option named; the top-level help
/// lists every command.
@Suite struct HelpTests {
    static let filters = ["--since", "--until", "--host", "--method", "--status", "--error", "--label", "--session", "--url", "--template", "--path", "--failures"]

    /// Each command and the options its help must mention.
    static let commands: [(String, [String])] = [
        ("fetch", ["--request", "--header", "--data", "--data-binary", "--body-stream", "--via", "--timeout", "--output",
                   "--exchange-json", "--store", "--no-store", "--rules"]),
        ("demo", []),
        ("list", filters + ["--limit", "--after", "--json", "--store"]),
        ("show", ["--json", "--store", "ID"]),
        ("export", ["--format", "--output", "--body-dir", "--store"] + filters),
        ("import", ["--format", "--session", "--store", "FILE"]),
        ("stats", filters + ["--slowest", "--json", "--store"]),
        ("prune", ["--older-than", "--max-size", "--max-count", "--json", "--store"]),
        ("rules", ["check", "FILE"]),
    ]

    @Test(arguments: commands.map(\.0))
    func helpNamesEveryOption(command: String) throws {
        let expected = try #require(Self.commands.first { $0.0 == command }?.1)
        for flag in ["--help", "-h"] {
            let result = try Nettap.run([command, flag])
            #expect(result.status == .exited(0), "\(command) \(flag): \(result)")
            #expect(result.stderr.isEmpty)
            #expect(result.lines.first?.hasPrefix("OVERVIEW: ") == true)
            #expect(result.stdout.contains("USAGE: nettap \(command)"))
            for option in expected + ["--help"] {
                #expect(result.stdout.contains(option), "\(command) --help does not mention \(option)")
            }
        }
    }

    @Test func topLevelHelpListsEveryCommand() throws {
        let result = try Nettap.run(["--help"])
        #expect(result.status == .exited(0))
        for (command, _) in Self.commands {
            #expect(result.lines.contains { $0.hasPrefix("  \(command) ") }, "\(command) missing from:\n\(result.stdout)")
        }
    }
}
