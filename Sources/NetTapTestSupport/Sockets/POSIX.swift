#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The few POSIX calls test support needs (client sockets, signals, file locks), kept in one
/// file so the rest of the target has no platform conditionals.
enum POSIX {
    static func errorText(_ code: Int32 = errno) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }

    #if canImport(Glibc)
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let streamType = SOCK_STREAM
    private static let sendFlags: Int32 = 0
    #endif

    /// Connects a blocking TCP socket to a numeric `host` and `port`.
    static func connect(host: String, port: Int) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamType
        var results: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &results)
        guard status == 0, let first = results else {
            throw RawHTTPConnection.Failure(message: "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(results) }
        let descriptor = socket(first.pointee.ai_family, streamType, 0)
        guard descriptor >= 0 else { throw RawHTTPConnection.Failure(message: "socket: \(errorText())") }
        #if canImport(Darwin)
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var connected: Int32
        repeat {
            #if canImport(Glibc)
            connected = Glibc.connect(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen)
            #else
            connected = Darwin.connect(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen)
            #endif
        } while connected != 0 && errno == EINTR
        guard connected == 0 else {
            let text = errorText()
            close(descriptor)
            throw RawHTTPConnection.Failure(message: "connect to \(host):\(port): \(text)")
        }
        return descriptor
    }

    static func setReceiveTimeout(_ descriptor: Int32, seconds: Double) {
        let whole = seconds.rounded(.down)
        var value = timeval()
        value.tv_sec = .init(whole)
        value.tv_usec = .init(((seconds - whole) * 1_000_000).rounded())
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    static func sendAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let count = send(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset, sendFlags)
            if count > 0 {
                offset += count
            } else if errno != EINTR {
                throw RawHTTPConnection.Failure(message: "send: \(errorText())")
            }
        }
    }

    enum ReceiveResult {
        case bytes(Int)
        case closed
        case timedOut
        case reset
    }

    static func receive(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws -> ReceiveResult {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .bytes(count) }
            if count == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .timedOut
            case ECONNRESET: return .reset
            default: throw RawHTTPConnection.Failure(message: "recv: \(errorText())")
            }
        }
    }

    static func shutdownWrite(_ descriptor: Int32) {
        #if canImport(Glibc)
        _ = shutdown(descriptor, Int32(SHUT_WR))
        #else
        _ = shutdown(descriptor, SHUT_WR)
        #endif
    }

    /// Makes close send a TCP reset: a client that vanishes abruptly.
    static func setResetOnClose(_ descriptor: Int32) {
        var value = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &value, socklen_t(MemoryLayout<linger>.size))
    }

    static func closeDescriptor(_ descriptor: Int32) {
        _ = close(descriptor)
    }

    static func sendSignal(_ pid: Int32, _ signal: Int32) {
        _ = kill(pid, signal)
    }

    static var killSignal: Int32 { SIGKILL }
    static var terminateSignal: Int32 { SIGTERM }
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
