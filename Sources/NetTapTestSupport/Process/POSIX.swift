#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The process and file-lock calls test support needs (signals, ids, advisory locks), in one
/// file so the rest of the target has no platform conditionals. Sockets go through
/// NetTapServer's `SocketGlue`.
enum POSIX {
    static func errorText(_ code: Int32 = errno) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }

    /// Makes writes to a pipe whose reader has gone fail with EPIPE instead of killing the
    /// process. Test processes only: it changes the signal disposition process-wide.
    static func ignoreBrokenPipes() {
        _ = signal(SIGPIPE, SIG_IGN)
    }

    static func sendSignal(_ pid: Int32, _ signal: Int32) {
        _ = kill(pid, signal)
    }

    static var killSignal: Int32 { SIGKILL }
    static var currentProcessID: Int32 { getpid() }
    static var effectiveUserID: UInt32 { geteuid() }

    /// True if a process with `pid` exists (signal 0 probes without sending).
    static func processExists(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }

    /// Opens (creating) `path` and takes an exclusive advisory lock on it; blocks until granted.
    /// Used to serialise CA-store changes across test processes.
    static func lockFile(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT, 0o644)
        guard descriptor >= 0 else { throw TLSTestServer.Failure(message: "open lock file \(path): \(errorText())") }
        while flock(descriptor, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            let text = errorText()
            close(descriptor)
            throw TLSTestServer.Failure(message: "lock \(path): \(text)")
        }
        return descriptor
    }

    static func unlockFile(_ descriptor: Int32) {
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
