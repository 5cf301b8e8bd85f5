import Foundation

/// `nettap`: capture, inspect and shape HTTP traffic with NetTap from the command line.
/// The binary only parses arguments and calls the NetTap modules.
enum Commands {
    static let all: [any Command.Type] = [
        FetchCommand.self,
        DemoCommand.self,
        RulesCommand.self,
        ListCommand.self,
        ShowCommand.self,
        ExportCommand.self,
        ImportCommand.self,
        StatsCommand.self,
        PruneCommand.self,
    ]
}

func topLevelHelp() -> String {
    var lines = [
        "OVERVIEW: nettap captures, stores and shapes HTTP(S) traffic made through URLSession.",
        "",
        "USAGE: nettap <command> [options]",
        "",
        "COMMANDS:",
    ]
    for command in Commands.all {
        let name = command.spec.name
        lines.append("  " + name + String(repeating: " ", count: max(1, 14 - name.count)) + command.spec.abstract)
    }
    lines += ["", "See 'nettap <command> --help' for a command's options."]
    return lines.joined(separator: "\n")
}

func runMain() async -> Int32 {
    var arguments = Array(CommandLine.arguments.dropFirst())
    guard let name = arguments.first else {
        Output.error(topLevelHelp())
        return 2
    }
    if name == "--help" || name == "-h" || name == "help" {
        Output.out(topLevelHelp())
        return 0
    }
    arguments.removeFirst()
    guard let command = Commands.all.first(where: { $0.spec.name == name }) else {
        Output.error("nettap: error: unknown command '\(name)'\n\n" + topLevelHelp())
        return 2
    }
    do {
        let parsed = try ParsedArguments(arguments, spec: command.spec)
        return try await command.init(parsed).run()
    } catch CLIError.helpRequested {
        Output.out(command.spec.helpText)
        return 0
    } catch CLIError.usage(let message, let spec) {
        Output.error("nettap \(name): error: \(message)")
        Output.error("usage: \((spec ?? command.spec).usage)")
        Output.error("See 'nettap \(name) --help'.")
        return 2
    } catch CLIError.failure(let message, let status) {
        Output.error("nettap \(name): error: \(message)")
        return status
    } catch {
        Output.error("nettap \(name): error: \(error)")
        return 1
    }
}

// A closed pipe (nettap list | head) must end the write, not the process.
signal(SIGPIPE, SIG_IGN)
exit(await runMain())
