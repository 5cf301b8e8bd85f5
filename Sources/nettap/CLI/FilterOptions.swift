import Foundation
import NetTapCore
import NetTapStore

/// The filter options that `list`, `export` and `stats` share, and their translation into an
/// `ExchangeFilter`. Every bad value is a usage error naming the option.
enum FilterOptions {
    static let options: [CommandSpec.Option] = [
        .init(names: ["--since"], valueName: "TIME", help: "Started at or after TIME: ISO 8601, local 'YYYY-MM-DD HH:MM', or an age (15m, 2h, 7d)."),
        .init(names: ["--until"], valueName: "TIME", help: "Started before TIME (same forms as --since)."),
        .init(names: ["--host"], valueName: "HOST", help: "Only requests to HOST (without case)."),
        .init(names: ["--method"], valueName: "METHOD", help: "Only this request method (without case)."),
        .init(names: ["--status"], valueName: "STATUS", help: "A status (404), a class (4xx) or a range (500-599)."),
        .init(
            names: ["--error"], valueName: "CATEGORY",
            help: "Only errors of CATEGORY: \(ErrorCategory.allCases.map(\.rawValue).joined(separator: ", "))."),
        .init(names: ["--label"], valueName: "KEY=VALUE", help: "Only exchanges carrying this label.", isRepeatable: true),
        .init(names: ["--session"], valueName: "ID", help: "Only this capture session."),
        .init(names: ["--url"], valueName: "TEXT", help: "Only URLs containing TEXT (without case)."),
        .init(
            names: ["--template"], valueName: "TEMPLATE",
            help: "Only this endpoint: the path with its ids as {id}, e.g. '/users/{id}' (column url_template)."),
        .init(names: ["--path"], valueName: "PATH", help: "Only this capture path: protocol, session or import."),
        .init(names: ["--failures"], help: "Only failures: status 400 or above, or no response."),
    ]

    /// The filter the options of `arguments` describe; ages count back from `now`.
    static func filter(from arguments: ParsedArguments, now: Date = Date()) throws -> ExchangeFilter {
        let spec = arguments.spec
        var filter = ExchangeFilter()
        filter.since = try time(arguments, "--since", now: now)
        filter.until = try time(arguments, "--until", now: now)
        if let since = filter.since, let until = filter.until, since >= until {
            throw CLIError.usage("--since must be earlier than --until", command: spec)
        }
        filter.host = try nonEmpty(arguments, "--host")?.lowercased()
        filter.method = try nonEmpty(arguments, "--method")
        if let text = arguments.value("--status") {
            guard let range = statusRange(text) else {
                throw CLIError.usage(
                    "option '--status' expects a status (404), a class (4xx) or a range (500-599), not '\(text)'",
                    command: spec)
            }
            filter.statusRange = range
        }
        if let text = arguments.value("--error") {
            guard let category = ErrorCategory(rawValue: text.lowercased()) else {
                let known = ErrorCategory.allCases.map(\.rawValue).joined(separator: ", ")
                throw CLIError.usage("option '--error' expects one of \(known), not '\(text)'", command: spec)
            }
            filter.errorCategory = category
        }
        for text in arguments.allValues("--label") {
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                throw CLIError.usage("option '--label' expects KEY=VALUE, not '\(text)'", command: spec)
            }
            let key = String(text[..<equals])
            let value = String(text[text.index(after: equals)...])
            if let earlier = filter.labels[key], earlier != value {
                throw CLIError.usage(
                    "option '--label' gives '\(key)' two values ('\(earlier)' and '\(value)'); no exchange can match both",
                    command: spec)
            }
            filter.labels[key] = value
        }
        filter.sessionID = try nonEmpty(arguments, "--session")
        filter.urlContains = try nonEmpty(arguments, "--url")
        filter.urlTemplate = try nonEmpty(arguments, "--template")
        if let text = arguments.value("--path") {
            guard let path = CapturePath(rawValue: text.lowercased()) else {
                throw CLIError.usage("option '--path' expects protocol, session or import, not '\(text)'", command: spec)
            }
            filter.capturePath = path
        }
        filter.failuresOnly = arguments.flag("--failures")
        return filter
    }

    /// `404` → 404...404, `4xx` → 400...499, `500-599` → 500...599.
    static func statusRange(_ text: String) -> ClosedRange<Int>? {
        let lowered = text.trimmingCharacters(in: .whitespaces).lowercased()
        if lowered.count == 3, lowered.hasSuffix("xx"), let first = lowered.first?.wholeNumberValue, (1...9).contains(first) {
            return first * 100 ... first * 100 + 99
        }
        let parts = lowered.split(separator: "-", omittingEmptySubsequences: false)
        let bounds = parts.map { Int($0) }
        guard (1...2).contains(parts.count), let low = bounds.first ?? nil, let high = bounds.last ?? nil,
            (100...999).contains(low), (100...999).contains(high), low <= high
        else { return nil }
        return low ... high
    }

    private static func time(_ arguments: ParsedArguments, _ name: String, now: Date) throws -> Date? {
        guard let text = arguments.value(name) else { return nil }
        guard let date = TimeArgument.parse(text, now: now) else {
            throw CLIError.usage("option '\(name)' expects \(TimeArgument.expected), not '\(text)'", command: arguments.spec)
        }
        return date
    }

    private static func nonEmpty(_ arguments: ParsedArguments, _ name: String) throws -> String? {
        guard let text = arguments.value(name) else { return nil }
        guard !text.isEmpty else { throw CLIError.usage("option '\(name)' needs a non-empty value", command: arguments.spec) }
        return text
    }
}
