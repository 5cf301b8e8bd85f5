import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process whose standard output is read line by line with a deadline, and which can
/// be killed with a signal.
final class ChildProcess {
    struct Timeout: Error, CustomStringConvertible {
        var description: String
    }

    private let process = Process()
    private let output = Pipe()
    private var buffer = Data()
    private(set) var exited = false

    init(executable: String, arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
    }

    var processIdentifier: Int32 { process.processIdentifier }

    /// The next line of output, or nil at end of output. Throws when none comes before `deadline`.
    func readLine(deadline: Date) throws -> String? {
        let fd = output.fileHandleForReading.fileDescriptor
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex ..< newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex ... newline)
                return line
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw Timeout(description: "no line from the child before the deadline") }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(remaining, 1) * 1000))
            if ready < 0, errno != EINTR { throw Timeout(description: "poll failed: errno \(errno)") }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(fd, &chunk, chunk.count)
            if count == 0 { return nil }
            if count < 0 {
                if errno == EINTR { continue }
                throw Timeout(description: "read failed: errno \(errno)")
            }
            buffer.append(contentsOf: chunk[0 ..< count])
        }
    }

    /// Sends `signal` and waits for the process to end.
    func kill(_ signal: Int32) {
        if process.isRunning { _ = sendSignal(process.processIdentifier, signal) }
        process.waitUntilExit()
        exited = true
    }

    var terminationReason: Process.TerminationReason { process.terminationReason }
    var terminationStatus: Int32 { process.terminationStatus }

    deinit {
        if !exited, process.isRunning {
            _ = sendSignal(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// `kill(2)`, outside the class whose `kill` method would shadow it.
private func sendSignal(_ pid: Int32, _ signal: Int32) -> Int32 {
    kill(pid, signal)
}
