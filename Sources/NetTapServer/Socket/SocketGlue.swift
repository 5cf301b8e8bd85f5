#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Every socket call the package makes, in one place, so the rest of the code has no platform
/// conditionals. File descriptors are plain `Int32`s; ownership rules live with the callers (a
/// connection's worker thread alone closes its descriptor). The `package` members also serve
/// NetTapTestSupport's raw test client.
package enum SocketGlue {
    /// A failed system call: which operation, and `errno` rendered as text.
    static func failure(_ operation: String, _ code: Int32 = errno) -> HTTPServerError {
        .socket(operation: operation, code: code, message: String(cString: strerror(code)))
    }

    #if canImport(Glibc)
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let streamType = SOCK_STREAM
    private static let sendFlags: Int32 = 0
    #endif

    /// Creates, binds and listens on a TCP socket for `host` (a numeric address or a name that
    /// resolves locally) and `port` (0 picks an ephemeral port). Returns the descriptor and the
    /// bound port. The listener is non-blocking so that a vanished connection never stalls accept.
    static func listen(host: String, port: Int, backlog: Int32) throws -> (descriptor: Int32, port: Int) {
        try withNewSocket(host: host, port: port, flags: AI_PASSIVE | AI_NUMERICSERV) { descriptor, address in
            var one: Int32 = 1
            let size = socklen_t(MemoryLayout<Int32>.size)
            guard setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, size) == 0 else {
                throw failure("setsockopt(SO_REUSEADDR)")
            }
            if address.ai_family == AF_INET6 {
                // An IPv6 listener serves IPv6 only, so that "::1" means exactly ::1.
                _ = setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, size)
            }
            try preventSigpipe(descriptor)
            guard bind(descriptor, address.ai_addr, address.ai_addrlen) == 0 else {
                throw failure("bind \(host):\(port)")
            }
            guard systemListen(descriptor, backlog) == 0 else { throw failure("listen") }
            try setNonBlocking(descriptor, true)
            return (descriptor, try localPort(descriptor))
        }
    }

    /// Resolves `host` and `port` (with getaddrinfo `flags`), makes a TCP socket for the first
    /// address and hands both to `body`; the socket is closed if `body` throws, kept otherwise.
    private static func withNewSocket<Result>(
        host: String, port: Int, flags: Int32, _ body: (Int32, addrinfo) throws -> Result
    ) throws -> Result {
        var hints = addrinfo()
        hints.ai_flags = flags
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamType
        var results: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &results)
        guard status == 0, let first = results else {
            let reason = status == 0 ? "no address" : String(cString: gai_strerror(status))
            throw HTTPServerError.invalidAddress(host: host, reason: reason)
        }
        defer { freeaddrinfo(results) }
        let descriptor = socket(first.pointee.ai_family, streamType, 0)
        guard descriptor >= 0 else { throw failure("socket") }
        do {
            return try body(descriptor, first.pointee)
        } catch {
            close(descriptor)
            throw error
        }
    }

    private static func systemListen(_ descriptor: Int32, _ backlog: Int32) -> Int32 {
        #if canImport(Glibc)
        return Glibc.listen(descriptor, backlog)
        #else
        return Darwin.listen(descriptor, backlog)
        #endif
    }

    static func localPort(_ descriptor: Int32) throws -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard status == 0 else { throw failure("getsockname") }
        return describe(&storage, length: length).port
    }

    /// The outcome of one accept attempt.
    enum AcceptResult {
        case accepted(Int32, HTTPServerRequest.RemoteAddress)
        case wouldBlock
        case failed(HTTPServerError)
    }

    static func accept(_ listener: Int32) -> AcceptResult {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        while true {
            let descriptor = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    #if canImport(Glibc)
                    Glibc.accept(listener, pointer, &length)
                    #else
                    Darwin.accept(listener, pointer, &length)
                    #endif
                }
            }
            if descriptor >= 0 {
                let peer = describe(&storage, length: length)
                return .accepted(descriptor, HTTPServerRequest.RemoteAddress(host: peer.host, port: peer.port))
            }
            let code = errno
            switch code {
            case EINTR: continue
            // The peer gave up between the readiness report and accept: nothing to do.
            case EAGAIN, EWOULDBLOCK, ECONNABORTED, EPROTO: return .wouldBlock
            default: return .failed(failure("accept", code))
            }
        }
    }

    private static func describe(_ storage: inout sockaddr_storage, length: socklen_t) -> (host: String, port: Int) {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let status = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), &service, socklen_t(service.count),
                            NI_NUMERICHOST | NI_NUMERICSERV)
            }
        }
        guard status == 0 else { return ("unknown", 0) }
        let hostText = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let serviceText = String(decoding: service.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (hostText, Int(serviceText) ?? 0)
    }

    /// Prepares an accepted connection: blocking I/O (Darwin inherits O_NONBLOCK from the
    /// listener), no SIGPIPE, no Nagle delay, and receive/send timeouts.
    static func configureConnection(_ descriptor: Int32, receiveTimeout: Double, sendTimeout: Double) throws {
        try setNonBlocking(descriptor, false)
        try preventSigpipe(descriptor)
        var one: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        try setTimeout(descriptor, option: SO_RCVTIMEO, seconds: receiveTimeout)
        try setTimeout(descriptor, option: SO_SNDTIMEO, seconds: sendTimeout)
    }

    private static func setTimeout(_ descriptor: Int32, option: Int32, seconds: Double) throws {
        guard seconds > 0 else { return }
        let whole = seconds.rounded(.down)
        var value = timeval()
        value.tv_sec = .init(whole)
        value.tv_usec = .init(((seconds - whole) * 1_000_000).rounded())
        guard setsockopt(descriptor, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
            throw failure("setsockopt(timeout)")
        }
    }

    private static func preventSigpipe(_ descriptor: Int32) throws {
        #if canImport(Darwin)
        var one: Int32 = 1
        guard setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw failure("setsockopt(SO_NOSIGPIPE)")
        }
        #endif
    }

    private static func setNonBlocking(_ descriptor: Int32, _ enabled: Bool) throws {
        let flags = fcntl(descriptor, F_GETFL, 0)
        guard flags >= 0 else { throw failure("fcntl(F_GETFL)") }
        let wanted = enabled ? flags | O_NONBLOCK : flags & ~O_NONBLOCK
        guard wanted == flags || fcntl(descriptor, F_SETFL, wanted) == 0 else { throw failure("fcntl(F_SETFL)") }
    }

    /// Connects a blocking TCP socket to a numeric `host` (`127.0.0.1`, `::1`) and `port`.
    package static func connect(host: String, port: Int) throws -> Int32 {
        try withNewSocket(host: host, port: port, flags: AI_NUMERICHOST | AI_NUMERICSERV) { descriptor, address in
            try preventSigpipe(descriptor)
            while systemConnect(descriptor, address.ai_addr, address.ai_addrlen) != 0 {
                guard errno == EINTR else { throw failure("connect to \(host):\(port)") }
            }
            return descriptor
        }
    }

    private static func systemConnect(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
        #if canImport(Glibc)
        return Glibc.connect(descriptor, address, length)
        #else
        return Darwin.connect(descriptor, address, length)
        #endif
    }

    /// The outcome of one receive call.
    package enum ReceiveResult {
        case bytes(Int)
        /// Orderly end of input (FIN).
        case closed
        /// The peer reset the connection (RST).
        case reset
        case timedOut
        case failed(HTTPServerError)
    }

    package static func receive(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> ReceiveResult {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .bytes(count) }
            if count == 0 { return .closed }
            let code = errno
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .timedOut
            case ECONNRESET: return .reset
            case ENOTCONN, EPIPE: return .closed
            default: return .failed(failure("recv", code))
            }
        }
    }

    /// Sends every byte or throws; a peer that went away surfaces as `.connectionClosed`.
    package static func sendAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let count = send(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset, sendFlags)
            if count > 0 {
                offset += count
                continue
            }
            let code = errno
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: throw HTTPServerError.sendTimedOut
            case EPIPE, ECONNRESET, ENOTCONN, ESHUTDOWN: throw HTTPServerError.connectionClosed
            default: throw failure("send", code)
            }
        }
    }

    /// True when the peer has closed or reset its side. Looks without consuming: a readable
    /// socket with pending bytes still counts as connected.
    static func peerHasClosed(_ descriptor: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&entry, 1, 0)
        guard ready > 0 else { return ready < 0 }
        if entry.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return true }
        var probe: UInt8 = 0
        let count = recv(descriptor, &probe, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if count == 0 { return true }
        return count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR
    }

    /// Waits until `descriptor` is readable or `wake` is readable. Returns true if `wake` fired.
    static func waitReadable(_ descriptor: Int32, orWake wake: Int32) -> (readable: Bool, woken: Bool) {
        var entries = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = poll(&entries, 2, -1)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { return (false, true) }
            return (entries[0].revents != 0, entries[1].revents != 0)
        }
    }

    static func makePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw failure("pipe") }
        return (ends[0], ends[1])
    }

    static func writeByte(_ descriptor: Int32) {
        var byte: UInt8 = 1
        _ = write(descriptor, &byte, 1)
    }

    /// Ends both directions so that a thread blocked in recv or send on `descriptor` returns.
    static func shutdownBoth(_ descriptor: Int32) {
        #if canImport(Glibc)
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
        #else
        _ = shutdown(descriptor, SHUT_RDWR)
        #endif
    }

    /// Ends only our sending side (FIN), leaving the receiving side open to drain.
    package static func shutdownWrite(_ descriptor: Int32) {
        #if canImport(Glibc)
        _ = shutdown(descriptor, Int32(SHUT_WR))
        #else
        _ = shutdown(descriptor, SHUT_WR)
        #endif
    }

    /// Makes the coming close send a TCP reset instead of an orderly FIN.
    package static func setResetOnClose(_ descriptor: Int32) {
        var value = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &value, socklen_t(MemoryLayout<linger>.size))
    }

    package static func setReceiveTimeout(_ descriptor: Int32, seconds: Double) {
        try? setTimeout(descriptor, option: SO_RCVTIMEO, seconds: seconds)
    }

    package static func closeDescriptor(_ descriptor: Int32) {
        _ = close(descriptor)
    }
}
