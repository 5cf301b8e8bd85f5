import Foundation

/// What went wrong in the server or in a response being written.
public enum HTTPServerError: Error, Equatable, CustomStringConvertible {
    /// The host could not be resolved to a local address.
    case invalidAddress(host: String, reason: String)
    /// A system call failed: the operation, `errno` and its text.
    case socket(operation: String, code: Int32, message: String)
    /// `start()` was called on a server that is running or was stopped.
    case notStartable(state: String)
    /// The client closed or reset the connection while the response was being written.
    case connectionClosed
    /// The client stopped reading for longer than the send timeout.
    case sendTimedOut
    /// A response method was called in the wrong order (e.g. `write` before `start`, or twice `respond`).
    case responseState(String)
    /// A fixed-length body got a different number of bytes than its Content-Length announced.
    case bodyLengthMismatch(expected: Int, written: Int)

    public var description: String {
        switch self {
        case .invalidAddress(let host, let reason): return "cannot listen on host '\(host)': \(reason)"
        case .socket(let operation, let code, let message): return "\(operation) failed: \(message) (errno \(code))"
        case .notStartable(let state): return "the server cannot be started: it is \(state)"
        case .connectionClosed: return "the client closed the connection"
        case .sendTimedOut: return "the client stopped reading the response (send timed out)"
        case .responseState(let message): return "response misuse: \(message)"
        case .bodyLengthMismatch(let expected, let written):
            return "body length mismatch: Content-Length \(expected), wrote \(written) bytes"
        }
    }
}
