import Foundation
import NetTapTestSupport
import Testing

/// Child processes: output lines as they come, exit status, stdin, kill, bounded waits.
@Suite struct ChildProcessTests {
    @Test func readsLinesAndExitStatus() throws {
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "echo one; echo two >&2; printf 'three\\nfour'; exit 3"])
        #expect(try child.readLine(timeout: 10) == "one")
        #expect(try child.readLine(timeout: 10) == "three")
        #expect(try child.readLine(timeout: 10) == "four", "a last line without newline still arrives")
        #expect(try child.readLine(timeout: 10) == nil, "nil at end of output")
        #expect(try child.waitForExit(timeout: 10) == .exited(3))
        #expect(child.standardErrorText == "two\n")
        #expect(child.termination == .exited(3))
    }

    @Test func lineArrivesWhileTheProcessStillRuns() throws {
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "echo ready; exec sleep 600"])
        #expect(try child.readLine(timeout: 10) == "ready")
        #expect(child.termination == nil)
        child.kill()
        #expect(try child.waitForExit(timeout: 10) == .signaled(9))
    }

    @Test func standardInputReachesTheChild() throws {
        let child = try ChildProcess(executable: "/bin/cat")
        try child.write(Data("echoed back\n".utf8))
        #expect(try child.readLine(timeout: 10) == "echoed back")
        child.closeInput()
        #expect(try child.waitForExit(timeout: 10) == .exited(0))
    }

    @Test func environmentAndDirectoryAreApplied() throws {
        let directory = try TemporaryDirectory()
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "echo \"$NETTAP_PROBE\"; pwd"],
                                     environment: ["NETTAP_PROBE": "probe-value"], currentDirectory: directory.url)
        #expect(try child.remainingLines(timeout: 10) == ["probe-value", directory.url.resolvingSymlinksInPath().path])
    }

    @Test func waitsThatRunOutThrowNamingTheCommand() throws {
        let child = try ChildProcess(executable: "/bin/sleep", arguments: ["600"])
        #expect {
            try child.readLine(timeout: 0.1)
        } throws: { error in
            (error as? ChildProcess.Failure)?.message.contains("no output line from '/bin/sleep 600' within 0.1 s") == true
        }
        #expect(throws: ChildProcess.Failure.self) { try child.waitForExit(timeout: 0.1) }
        child.kill()
        #expect(try child.waitForExit(timeout: 10) == .signaled(9))
    }

    @Test func missingExecutableIsAClearError() {
        #expect {
            _ = try ChildProcess(executable: "/no/such/tool")
        } throws: { error in
            (error as? ChildProcess.Failure)?.message.hasPrefix("cannot start '/no/such/tool'") == true
        }
    }
}
