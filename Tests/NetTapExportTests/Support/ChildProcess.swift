import Foundation
import NetTapCore

/// Runs real child processes for tests (sh, curl, python3) with bounded waits.
struct ChildProcess {
    struct Result {
        var status: Int32
        var stdout: Data
        var stderr: Data
        var stderrText: String { String(decoding: stderr, as: UTF8.self) }
        var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    }

    struct Timeout: Error, CustomStringConvertible {
        var command: String
        var description: String { "timed out waiting for: \(command)" }
    }

    /// Runs `executable` to completion, feeding `input` on stdin; fails after `timeout` seconds.
    static func run(
        _ executable: String, _ arguments: [String], input: Data? = nil, environment: [String: String]? = nil,
        timeout: TimeInterval = 30
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let stdout = Pipe(), stderr = Pipe(), stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = stdin
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()

        // Drain both pipes on their own threads so a full pipe never blocks the child.
        let outData = Protected(Data()), errData = Protected(Data())
        let drained = DispatchGroup()
        for (pipe, sink) in [(stdout, outData), (stderr, errData)] {
            drained.enter()
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                sink.withLock { $0 = data }
                drained.leave()
            }
        }
        if let input { try stdin.fileHandleForWriting.write(contentsOf: input) }
        try stdin.fileHandleForWriting.close()

        let command = ([executable] + arguments).joined(separator: " ")
        guard exited.wait(timeout: .now() + timeout) == .success else {
            process.terminate()
            throw Timeout(command: command)
        }
        guard drained.wait(timeout: .now() + timeout) == .success else { throw Timeout(command: command) }
        return Result(status: process.terminationStatus, stdout: outData.current, stderr: errData.current)
    }
}

/// Lines from a long-running child's output, read on a background thread, each awaited with a timeout.
final class LineReader: @unchecked Sendable {
    private let lines = Protected<[String]>([])
    private let available = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        let lines = self.lines, available = self.available
        Thread.detachNewThread {
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending = Data(pending[pending.index(after: newline)...])
                    lines.withLock { $0.append(line) }
                    available.signal()
                }
            }
        }
    }

    /// The next line, or nil when none arrives within `timeout` seconds.
    func next(timeout: TimeInterval = 20) -> String? {
        guard available.wait(timeout: .now() + timeout) == .success else { return nil }
        var line: String?
        lines.withLock { line = $0.removeFirst() }
        return line
    }
}
