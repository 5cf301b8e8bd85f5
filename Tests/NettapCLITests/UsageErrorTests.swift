import Foundation
import NetTapTestSupport
import Testing

/// A wrong command line is a usage error: exit status 2, the option or argument named on stderr
/// with the usage line, nothing on stdout, and no store touched.
@Suite struct UsageErrorTests {
    static let cases: [(arguments: [String], message: String)] = [
        (["list", "--bogus"], "unknown option '--bogus'"),
        (["list", "--limit"], "option '--limit' needs a value <N>"),
        (["list", "--limit", "ten"], "option '--limit' expects a whole number, not 'ten'"),
        (["list", "--limit", "0"], "option '--limit' must be at least 1, not 0"),
        (["list", "--after", "page-two"], "option '--after' expects a cursor printed by 'nettap list', not 'page-two'"),
        (["list", "--status", "2xxx"], "option '--status' expects a status (404), a class (4xx) or a range (500-599), not '2xxx'"),
        (["list", "--status", "599-500"], "option '--status' expects"),
        (["list", "--since", "yesterday"], "option '--since' expects an ISO 8601 time"),
        (["list", "--until", "2026-13-01"], "option '--until' expects an ISO 8601 time"),
        (["list", "--since", "1h", "--until", "2h"], "--since must be earlier than --until"),
        (["list", "--error", "boom"], "option '--error' expects one of timeout, dns, connect, tls, cancelled, http-none, blocked, other, not 'boom'"),
        (["list", "--label", "screen"], "option '--label' expects KEY=VALUE, not 'screen'"),
        (["list", "--label", "a=1", "--label", "a=2"], "option '--label' gives 'a' two values"),
        (["list", "--path", "wire"], "option '--path' expects protocol, session or import, not 'wire'"),
        (["list", "--host", ""], "option '--host' needs a non-empty value"),
        (["list", "--json", "--json=yes"], "option '--json' takes no value"),
        (["list", "--limit", "5", "--limit", "6"], "option '--limit' was given more than once"),
        (["list", "extra"], "unexpected argument 'extra'"),
        (["show"], "missing argument: ID"),
        (["show", "xyz"], "ID 'xyz' must be an exchange ID or at least 4 of its hexadecimal characters, from its start or its end"),
        (["export", "--format", "xml"], "option '--format' expects har, curl or ndjson, not 'xml'"),
        (["export", "--body-dir", "bodies"], "option '--body-dir' applies to --format curl only"),
        (["export", "--failures", "--status"], "option '--status' needs a value <STATUS>"),
        (["import"], "missing argument: FILE"),
        (["import", "--format", "csv", "x.csv"], "option '--format' expects har or ndjson, not 'csv'"),
        (["import", "--session", "s", "x.ndjson"], "option '--session' applies to HAR files"),
        (["stats", "--slowest", "-1"], "option '--slowest' must not be negative"),
        (["stats", "--method"], "option '--method' needs a value <METHOD>"),
        (["prune"], "give at least one limit: --older-than, --max-size or --max-count"),
        (["prune", "--older-than", "soon"], "option '--older-than': \"soon\" is not an age"),
        (["prune", "--max-size", "big"], "option '--max-size': \"big\" is not a size"),
        (["prune", "--max-count", "-3"], "option '--max-count' must not be negative, not -3"),
        (["fetch", "--no-store", "--store", "x.sqlite", "http://127.0.0.1:9/"], "use either --store or --no-store, not both"),
        (["fetch", "--via", "proxy", "http://127.0.0.1:9/"], "--via must be 'session', 'protocol' or 'shared', not 'proxy'"),
        (["fetch", "--timeout", "0", "http://127.0.0.1:9/"], "--timeout must be greater than 0"),
        (["fetch", "--timeout", "soon", "http://127.0.0.1:9/"], "option '--timeout'"),
    ] + wholeSecondTimeoutCases

    /// corelibs would turn 0.5 s into no timeout and 2.5 s into 2 (docs/linux-foundation-notes.md, fact 3).
    static var wholeSecondTimeoutCases: [(arguments: [String], message: String)] {
        #if canImport(Darwin)
        return []
        #else
        return [
            (["fetch", "--timeout", "0.5", "http://127.0.0.1:9/"],
             "--timeout 0.5: URLSession on Linux counts timeouts in whole seconds (it would use 0, and 0 means none); give a whole number of seconds"),
            (["fetch", "--timeout", "2.5", "http://127.0.0.1:9/"], "(it would use 2, and 0 means none)"),
        ]
        #endif
    }

    @Test(arguments: cases.indices)
    func usageErrorNamesTheOption(index: Int) throws {
        let (arguments, message) = Self.cases[index]
        let directory = try TemporaryDirectory()
        let store = directory.file("store.sqlite").path
        // The store comes from the environment, so that every case keeps its exact command line.
        let result = try Nettap.run(arguments, environment: ["NETTAP_STORE": store], currentDirectory: directory.url)
        let command = arguments[0]
        #expect(result.status == .exited(2), "\(arguments): \(result)")
        #expect(result.stdout.isEmpty, "\(arguments)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("nettap \(command): error: ") == true, "\(arguments): \(result.stderr)")
        #expect(lines.first?.contains(message) == true, "\(arguments): expected \"\(message)\" in \(result.stderr)")
        #expect(lines.contains { $0.hasPrefix("usage: nettap \(command)") }, "\(arguments)")
        #expect(lines.last == "See 'nettap \(command) --help'.")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "\(arguments) touched the store")
    }

    @Test func unknownCommand() throws {
        let result = try Nettap.run(["lst"])
        #expect(result.status == .exited(2))
        #expect(result.stderr.hasPrefix("nettap: error: unknown command 'lst'"))
        #expect(result.stdout.isEmpty)
    }
}
