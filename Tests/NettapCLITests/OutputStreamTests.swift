import Foundation
import NetTapTestSupport
import Testing

/// How the commands treat their streams: a reader that stops early (`| head`) ends the output
/// without a crash or a message, and progress lines appear only when stderr is a terminal.
@Suite struct OutputStreamTests {
    /// A store with `count` exchanges, enough for output larger than a pipe's buffer.
    static func bigStore(count: Int, in directory: TemporaryDirectory) throws -> String {
        let start = Date(timeIntervalSince1970: 1_780_000_000)
        let exchanges = (1...count).map { number in
            SampleExchange(id: SampleExchange.id(number), startedAt: start.addingTimeInterval(Double(number)),
                           url: "http://api.test/items/\(number)?page=\(number)")
        }
        return try SampleExchange.store(exchanges, in: directory)
    }

    @Test(arguments: [["list", "--limit", "3000"], ["export"], ["export", "--format", "ndjson"]])
    func closedPipeEndsOutputQuietly(arguments: [String]) throws {
        let directory = try TemporaryDirectory()
        let store = try Self.bigStore(count: 3000, in: directory)
        // bash with pipefail reports nettap's own status; head takes one line and closes the pipe.
        let shell = try ChildProcess(
            executable: "/bin/bash",
            arguments: ["-c", #"set -o pipefail; "$0" "$@" | head -n 1 >/dev/null; echo "status $?""#, try Nettap.binary()]
                + arguments + ["--store", store])
        #expect(try shell.waitForExit(timeout: 120) == .exited(0))
        #expect(try shell.remainingLines(timeout: 10) == ["status 0"])
        #expect(shell.standardErrorText.isEmpty, "\(arguments): \(shell.standardErrorText)")
    }

    @Test func progressOnlyOnATerminal() throws {
        let script = "/usr/bin/script"
        try #require(FileManager.default.isExecutableFile(atPath: script),
                     "util-linux `script` is needed to give nettap a terminal (apt-get install bsdutils)")
        let directory = try TemporaryDirectory()
        let store = try Self.bigStore(count: 20, in: directory)
        let file = directory.file("out.har").path
        let command = "'\(try Nettap.binary())' export --store '\(store)' -o '\(file)'"
        // `script` runs the command on a pseudo-terminal and copies everything it writes.
        let terminal = try ChildProcess(executable: script, arguments: ["-qec", command, "/dev/null"])
        #expect(try terminal.waitForExit(timeout: 60) == .exited(0), "\(terminal.standardErrorText)")
        let seen = try terminal.remainingLines(timeout: 10).joined(separator: "\n")
        #expect(seen.contains("\r\u{1B}[Kexporting: 1 of 20"), "\(seen.debugDescription)")
        // The progress line is erased before the result is printed.
        #expect(seen.contains("\r\u{1B}[KExported 20 exchanges to \(file)."), "\(seen.debugDescription)")

        let piped = try Nettap.succeed(["export", "--store", store, "-o", file])
        #expect(piped.stderr.isEmpty)
        #expect(piped.stdout == "Exported 20 exchanges to \(file).")

        // prune shows how far it got after each transaction, then erases the line.
        let prune = try ChildProcess(
            executable: script, arguments: ["-qec", "'\(try Nettap.binary())' prune --max-count 5 --store '\(store)'", "/dev/null"])
        #expect(try prune.waitForExit(timeout: 60) == .exited(0), "\(prune.standardErrorText)")
        let pruneSeen = try prune.remainingLines(timeout: 10).joined(separator: "\n")
        #expect(pruneSeen.contains("\r\u{1B}[Kpruning: 15 exchanges removed\r\u{1B}[KRemoved 15 exchanges"), "\(pruneSeen.debugDescription)")
        let pipedPrune = try Nettap.succeed(["prune", "--max-count", "1", "--store", store])
        #expect(pipedPrune.stderr.isEmpty)
        #expect(pipedPrune.stdout.hasPrefix("Removed 4 exchanges"))
    }
}
