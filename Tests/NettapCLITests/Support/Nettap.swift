import Foundation
import NetTapTestSupport
import Testing

/// Runs the built `nettap` binary as a child process, the way a user does.
///
/// The binary is found next to the test bundle (on Linux `.build/debug/` holds both; on macOS
/// the bundle sits a few levels below it), or at `$NETTAP_BINARY`. Every run gets `TZ=UTC`, so
/// that local times are predictable, and no `NETTAP_STORE` unless the test passes one.
///
/// ```swift
/// let result = try Nettap.run(["list", "--store", store, "--json"])
/// #expect(result.status == .exited(0))
/// ```
enum Nettap {
    /// What a run printed and how it ended.
    struct Result: CustomStringConvertible {
        var status: ChildProcess.Termination
        /// Standard output lines, without their newlines.
        var lines: [String]
        var stderr: String

        var stdout: String { lines.joined(separator: "\n") }

        /// Standard output parsed as JSON.
        func json() throws -> Any {
            try JSONSerialization.jsonObject(with: Data(stdout.utf8))
        }

        func jsonObject() throws -> [String: Any] {
            try #require(try json() as? [String: Any], "stdout is not a JSON object: \(stdout)")
        }

        var description: String { "\(status)\nstdout:\n\(stdout)\nstderr:\n\(stderr)" }
    }

    struct MissingBinary: Error, CustomStringConvertible {
        var description: String
    }

    /// The path of the `nettap` executable.
    static func binary() throws -> String {
        if let path = ProcessInfo.processInfo.environment["NETTAP_BINARY"], !path.isEmpty { return path }
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("nettap").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw MissingBinary(
            description: "the nettap executable was not found next to the test binary (\(CommandLine.arguments[0])); "
                + "run `swift build --product nettap` first or set NETTAP_BINARY")
    }

    /// Runs `nettap arguments...` to its end (at most `timeout` seconds).
    static func run(
        _ arguments: [String], environment extra: [String: String] = [:], currentDirectory: URL? = nil,
        timeout: Double = 120
    ) throws -> Result {
        var environment = ProcessInfo.processInfo.environment
        environment["NETTAP_STORE"] = nil
        environment["TZ"] = "UTC"
        environment.merge(extra) { _, new in new }
        let child = try ChildProcess(
            executable: try binary(), arguments: arguments, environment: environment, currentDirectory: currentDirectory)
        child.closeInput()
        let status = try child.waitForExit(timeout: timeout)
        let lines = try child.remainingLines(timeout: timeout)
        return Result(status: status, lines: lines, stderr: child.standardErrorText)
    }

    /// Runs and requires exit status 0, failing with what the command printed otherwise.
    @discardableResult
    static func succeed(
        _ arguments: [String], environment: [String: String] = [:], currentDirectory: URL? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Result {
        let result = try run(arguments, environment: environment, currentDirectory: currentDirectory)
        try #require(
            result.status == .exited(0), "nettap \(arguments.joined(separator: " ")) failed: \(result)",
            sourceLocation: sourceLocation)
        return result
    }

    /// The IDs `nettap list --json` gives for the store and filter arguments, newest first, all pages.
    static func listIDs(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let page = try succeed(["list", "--json", "--limit", "10000"] + arguments, sourceLocation: sourceLocation).jsonObject()
        let rows = try #require(page["exchanges"] as? [[String: Any]], sourceLocation: sourceLocation)
        return rows.compactMap { $0["id"] as? String }
    }

    /// The exchange count of the store at `path` (`nettap stats --json`).
    static func count(store path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        let stats = try succeed(["stats", "--json", "--store", path], sourceLocation: sourceLocation).jsonObject()
        return try #require(stats["exchanges"] as? Int, sourceLocation: sourceLocation)
    }
}
