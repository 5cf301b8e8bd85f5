/// What a command accepts: its options and positional arguments, from which both parsing and
/// `--help` are derived, so the two can never disagree.
struct CommandSpec: Sendable {
    struct Option: Sendable {
        /// All spellings: `["-X", "--request"]`.
        var names: [String]
        /// The placeholder of the value (`METHOD`), or nil for a flag.
        var valueName: String?
        var help: String
        var isRepeatable = false

        var takesValue: Bool { valueName != nil }
        var primaryName: String { names.last ?? "" }
    }

    struct Positional: Sendable {
        var name: String
        var help: String
        var isRequired = true
        var isRepeatable = false
    }

    var name: String
    var abstract: String
    var discussion: String = ""
    var options: [Option] = []
    var positionals: [Positional] = []

    func option(named name: String) -> Option? {
        options.first { $0.names.contains(name) }
    }

    var usage: String {
        var parts = ["nettap", name]
        if !options.isEmpty { parts.append("[options]") }
        for positional in positionals {
            var text = positional.name
            if positional.isRepeatable { text += "..." }
            parts.append(positional.isRequired ? text : "[\(text)]")
        }
        return parts.joined(separator: " ")
    }

    var helpText: String {
        var lines = ["OVERVIEW: \(abstract)", "", "USAGE: \(usage)"]
        if !discussion.isEmpty {
            lines += ["", discussion]
        }
        if !positionals.isEmpty {
            lines += ["", "ARGUMENTS:"]
            for positional in positionals {
                lines.append("  " + pad(positional.name, to: 26) + positional.help)
            }
        }
        lines += ["", "OPTIONS:"]
        for option in options {
            var spelled = option.names.joined(separator: ", ")
            if let value = option.valueName { spelled += " <\(value)>" }
            let help = option.help + (option.isRepeatable ? " (repeatable)" : "")
            if spelled.count >= 26 {
                lines.append("  " + spelled)
                lines.append("  " + pad("", to: 26) + help)
            } else {
                lines.append("  " + pad(spelled, to: 26) + help)
            }
        }
        lines.append("  " + pad("-h, --help", to: 26) + "Show help information.")
        return lines.joined(separator: "\n")
    }

    private func pad(_ text: String, to width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
