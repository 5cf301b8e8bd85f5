/// The result of parsing one command's arguments against its `CommandSpec`.
struct ParsedArguments: Sendable {
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []
    let spec: CommandSpec

    /// Parses `arguments` (without the program and command names).
    /// Accepts `--name value`, `--name=value`, `-X value`, `-XVALUE`, and `--` before positionals.
    init(_ arguments: [String], spec: CommandSpec) throws {
        self.spec = spec
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            if argument == "-h" || argument == "--help" {
                throw CLIError.helpRequested
            }
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            } else if !argument.hasPrefix("--"), argument.count > 2, spec.option(named: argument) == nil {
                // curl style: -XPOST, -HName:value
                name = String(argument.prefix(2))
                inlineValue = String(argument.dropFirst(2))
            }
            guard let option = spec.option(named: name) else {
                throw CLIError.usage("unknown option '\(name)'", command: spec)
            }
            if option.takesValue {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if index < arguments.count {
                    value = arguments[index]
                    index += 1
                } else {
                    throw CLIError.usage("option '\(name)' needs a value <\(option.valueName ?? "VALUE")>", command: spec)
                }
                let key = option.primaryName
                if !option.isRepeatable, values[key] != nil {
                    throw CLIError.usage("option '\(name)' was given more than once", command: spec)
                }
                values[key, default: []].append(value)
            } else {
                if inlineValue != nil {
                    throw CLIError.usage("option '\(name)' takes no value", command: spec)
                }
                flags.insert(option.primaryName)
            }
        }
        try validatePositionals()
    }

    private func validatePositionals() throws {
        let required = spec.positionals.filter(\.isRequired)
        if positionals.count < required.count {
            let missing = required[positionals.count...].map(\.name).joined(separator: ", ")
            throw CLIError.usage("missing argument: \(missing)", command: spec)
        }
        let repeatable = spec.positionals.contains { $0.isRepeatable }
        if !repeatable, positionals.count > spec.positionals.count {
            throw CLIError.usage("unexpected argument '\(positionals[spec.positionals.count])'", command: spec)
        }
    }

    /// The value of a single-valued option, by any of its names.
    func value(_ name: String) -> String? {
        values[primary(name)]?.last
    }

    func allValues(_ name: String) -> [String] {
        values[primary(name)] ?? []
    }

    func flag(_ name: String) -> Bool {
        flags.contains(primary(name))
    }

    /// A numeric option, with a usage error naming the option when the value is not a number.
    func double(_ name: String) throws -> Double? {
        guard let text = value(name) else { return nil }
        guard let number = Double(text), number.isFinite else {
            throw CLIError.usage("option '\(name)' expects a number, not '\(text)'", command: spec)
        }
        return number
    }

    func int(_ name: String) throws -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text) else {
            throw CLIError.usage("option '\(name)' expects a whole number, not '\(text)'", command: spec)
        }
        return number
    }

    private func primary(_ name: String) -> String {
        spec.option(named: name)?.primaryName ?? name
    }
}
