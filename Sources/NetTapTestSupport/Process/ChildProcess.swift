import Foundation

/// A child process for tests: started at once, its standard output readable line by line as it
/// arrives, its standard error collected, and every wait bounded.
///
/// Creating one makes the test process ignore SIGPIPE, so that writing to the standard input of
/// a child that has exited is an error (`write` throws) rather than the death of the test run.
///
/// ```swift
/// let child = try ChildProcess(executable: "/usr/bin/env", arguments: ["printf", "ready\n"])
/// #expect(try child.readLine(timeout: 5) == "ready")
/// #expect(try child.waitForExit(timeout: 5) == .exited(0))
/// ```
public final class ChildProcess: @unchecked Sendable {
    /// How the process ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        public var description: String {
            switch self {
            case .exited(let status): return "exit status \(status)"
            case .signaled(let signal): return "signal \(signal)"
            }
        }
    }

    /// A failure to start, or a wait that ran out of time, with the command and what was awaited.
    public struct Failure: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    private struct State {
        var stdoutBuffer = Data()
        var lines: [String] = []
        var stdoutClosed = false
        var stderr = Data()
        var stderrClosed = false
        var termination: Termination?
    }

    /// The state the reader threads and the termination handler share. Kept apart from the
    /// `ChildProcess` so that those threads never keep it alive (its deinit kills the child).
    private final class Shared: @unchecked Sendable {
        let condition = NSCondition()
        var state = State()

        func update(_ body: (inout State) -> Void) {
            condition.lock()
            body(&state)
            condition.broadcast()
            condition.unlock()
        }

        /// Waits (until `deadline`) for `ready` to produce a value from the state.
        func wait<T>(until deadline: Date, _ ready: (inout State) -> T?) -> T? {
            condition.lock()
            defer { condition.unlock() }
            while true {
                if let value = ready(&state) { return value }
                if !condition.wait(until: deadline) { return ready(&state) }
            }
        }
    }

    private static let brokenPipesIgnored: Void = POSIX.ignoreBrokenPipes()

    private let process = Process()
    private let input = Pipe()
    private let shared = Shared()
    /// The command line, for messages.
    public let commandLine: String

    /// Starts `executable` (a path) with `arguments`. `environment` nil inherits this process's.
    public init(executable: String, arguments: [String] = [], environment: [String: String]? = nil,
                currentDirectory: URL? = nil) throws {
        _ = Self.brokenPipesIgnored
        commandLine = ([executable] + arguments).joined(separator: " ")
        let output = Pipe()
        let errors = Pipe()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        let shared = shared
        process.terminationHandler = { finished in
            let termination: Termination = finished.terminationReason == .uncaughtSignal
                ? .signaled(finished.terminationStatus) : .exited(finished.terminationStatus)
            shared.update { $0.termination = termination }
        }
        do {
            try process.run()
        } catch {
            throw Failure(message: "cannot start '\(commandLine)': \(error)")
        }
        startReader(output.fileHandleForReading, isStandardOutput: true)
        startReader(errors.fileHandleForReading, isStandardOutput: false)
    }

    deinit {
        if process.isRunning { kill() }
    }

    public var processIdentifier: Int32 { process.processIdentifier }

    private func startReader(_ handle: FileHandle, isStandardOutput: Bool) {
        let shared = shared
        let thread = Thread {
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                shared.update { state in
                    if isStandardOutput {
                        state.stdoutBuffer.append(data)
                        while let newline = state.stdoutBuffer.firstIndex(of: 0x0A) {
                            let line = state.stdoutBuffer[state.stdoutBuffer.startIndex..<newline]
                            state.lines.append(String(decoding: line, as: UTF8.self))
                            state.stdoutBuffer.removeSubrange(state.stdoutBuffer.startIndex...newline)
                        }
                    } else {
                        state.stderr.append(data)
                    }
                }
            }
            shared.update { state in
                if isStandardOutput {
                    if !state.stdoutBuffer.isEmpty {
                        state.lines.append(String(decoding: state.stdoutBuffer, as: UTF8.self))
                        state.stdoutBuffer.removeAll()
                    }
                    state.stdoutClosed = true
                } else {
                    state.stderrClosed = true
                }
            }
        }
        thread.name = "ChildProcess.reader"
        thread.start()
    }

    /// The next line of standard output (without its newline), or nil once output has ended.
    /// Throws if no line arrives within `timeout` seconds.
    public func readLine(timeout: Double) throws -> String? {
        let next: String?? = shared.wait(until: Date(timeIntervalSinceNow: timeout)) { state in
            if !state.lines.isEmpty { return .some(state.lines.removeFirst()) }
            return state.stdoutClosed ? .some(nil) : nil
        }
        guard let line = next else {
            throw Failure(message: "no output line from '\(commandLine)' within \(timeout) s; stderr: \(standardErrorText)")
        }
        return line
    }

    /// Every remaining standard output line, after the output has ended (within `timeout`).
    public func remainingLines(timeout: Double) throws -> [String] {
        let lines: [String]? = shared.wait(until: Date(timeIntervalSinceNow: timeout)) { state in
            guard state.stdoutClosed else { return nil }
            defer { state.lines.removeAll() }
            return state.lines
        }
        guard let lines else { throw Failure(message: "output of '\(commandLine)' did not end within \(timeout) s") }
        return lines
    }

    /// Standard error collected so far.
    public var standardErrorText: String {
        shared.condition.lock()
        defer { shared.condition.unlock() }
        return String(decoding: shared.state.stderr, as: UTF8.self)
    }

    /// Writes to the child's standard input.
    public func write(_ data: Data) throws {
        do {
            try input.fileHandleForWriting.write(contentsOf: data)
        } catch {
            throw Failure(message: "writing to '\(commandLine)': \(error)")
        }
    }

    /// Closes the child's standard input (it then reads end of file).
    public func closeInput() {
        try? input.fileHandleForWriting.close()
    }

    /// Waits for the process to end and its output pipes to close. Throws if that takes longer
    /// than `timeout` seconds (the process is left running; `kill()` it).
    @discardableResult
    public func waitForExit(timeout: Double) throws -> Termination {
        let termination: Termination? = shared.wait(until: Date(timeIntervalSinceNow: timeout)) { state in
            guard state.stdoutClosed && state.stderrClosed else { return nil }
            return state.termination
        }
        guard let termination else {
            throw Failure(message: "'\(commandLine)' did not exit within \(timeout) s; stderr: \(standardErrorText)")
        }
        return termination
    }

    /// How the process ended, or nil while it runs.
    public var termination: Termination? {
        shared.condition.lock()
        defer { shared.condition.unlock() }
        return shared.state.termination
    }

    /// Sends SIGKILL (or `signal`). Harmless if the process has already ended.
    public func kill(signal: Int32? = nil) {
        guard process.isRunning else { return }
        POSIX.sendSignal(process.processIdentifier, signal ?? POSIX.killSignal)
    }
}
