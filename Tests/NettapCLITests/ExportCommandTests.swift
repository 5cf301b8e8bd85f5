import Foundation
import NetTapTestSupport
import Testing

/// `nettap export`: HAR, cURL and NDJSON of the stored exchanges, oldest first, to stdout or a
/// file that appears only when complete; the cURL commands send the captured requests again.
@Suite struct ExportCommandTests {
    @Test func ndjsonToStdoutOldestFirstWithoutProgressNoise() throws {
        let traffic = try CapturedTraffic()
        let newestFirst = try Nettap.listIDs(["--store", traffic.store])
        let result = try Nettap.succeed(["export", "--store", traffic.store, "--format", "ndjson"])
        let exchanges = try result.lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(exchanges.compactMap { $0["id"] as? String } == newestFirst.reversed())
        #expect(exchanges.compactMap { ($0["request"] as? [String: Any])?["url"] as? String } == traffic.requests.map(traffic.url))
        // stderr is not a terminal here: no progress line, nothing at all.
        #expect(result.stderr.isEmpty)
    }

    @Test func fileOutputMatchesStdoutAndNamesTheCount() throws {
        let traffic = try CapturedTraffic()
        let file = traffic.directory.file("all.har")
        let toFile = try Nettap.succeed(["export", "--store", traffic.store, "-o", file.path])
        #expect(toFile.stdout == "Exported \(traffic.requests.count) exchanges to \(file.path).")
        let toStdout = try Nettap.succeed(["export", "--store", traffic.store, "--format", "har"])
        #expect(try String(contentsOf: file, encoding: .utf8) == toStdout.stdout + "\n")
        // Nothing but the file was written beside it.
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: traffic.directory.path)).contains { $0.hasSuffix(".partial") })

        let empty = try Nettap.succeed(["export", "--store", traffic.store, "--host", "nowhere.test"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(empty.stdout.utf8)) as? [String: Any])
        #expect((document["log"] as? [String: Any])?["entries"] as? [Any] != nil)
        #expect(((document["log"] as? [String: Any])?["entries"] as? [Any])?.isEmpty == true)
    }

    @Test func unwritableOutputIsAFailureNamingTheFile() throws {
        let traffic = try CapturedTraffic()
        let file = traffic.directory.file("no-such-dir/out.har").path
        let result = try Nettap.run(["export", "--store", traffic.store, "-o", file])
        #expect(result.status == .exited(1))
        #expect(result.stderr == "nettap export: error: cannot write '\(file)': cannot create a file in its directory\n")
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test func curlCommandsSendTheCapturedRequestsAgain() throws {
        let traffic = try CapturedTraffic()
        let bodies = traffic.directory.file("bodies")
        let script = traffic.directory.file("replay.sh")
        try Nettap.succeed([
            "export", "--store", traffic.store, "--format", "curl", "--path", "session", "--method", "POST",
            "--body-dir", bodies.path, "-o", script.path,
        ])
        let text = try String(contentsOf: script, encoding: .utf8)
        let commands = text.components(separatedBy: "\n\n").filter { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
        #expect(commands.count == 2, "\(text)")
        // The binary body went to a file of its own, byte for byte.
        let files = try FileManager.default.contentsOfDirectory(atPath: bodies.path)
        #expect(files.count == 1)
        #expect(try Data(contentsOf: bodies.appendingPathComponent(try #require(files.first))) == CapturedTraffic.binaryBody)
        #expect(text.contains("--data-binary @"))

        traffic.server.clearLog()
        let shell = try ChildProcess(executable: "/bin/sh", arguments: [script.path])
        #expect(try shell.waitForExit(timeout: 60) == .exited(0), "\(shell.standardErrorText)")
        let json = traffic.server.receivedRequests(path: "/echo")
        let raw = traffic.server.receivedRequests(path: "/echo/raw")
        #expect(json.map(\.method) == ["POST"])
        #expect(json.first?.body == Data(CapturedTraffic.jsonBody.utf8))
        #expect(json.first?.headers["Content-Type"] == "application/json")
        #expect(json.first?.headers["X-Trace"] == "cli-test")
        #expect(raw.map(\.method) == ["POST"])
        #expect(raw.first?.body == CapturedTraffic.binaryBody)
    }
}
