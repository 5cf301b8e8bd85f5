import Foundation

/// Answers one request. Runs on the connection's worker thread; may block (that only holds up
/// its own connection). Throwing before answering yields a 500.
public typealias HTTPHandler = @Sendable (HTTPServerRequest, HTTPResponseWriter) throws -> Void

/// A small HTTP/1.1 server over POSIX sockets: one listener thread, one worker thread per
/// connection with blocking I/O, persistent connections and pipelining, Content-Length and
/// chunked bodies both ways, `Expect: 100-continue`, and bounded limits answered with 400, 413,
/// 414 and 431. A client may vanish at any moment without harm; SIGPIPE is never raised.
///
/// ```swift
/// var router = HTTPRouter()
/// router.get("/hello/:name") { request, response in
///     try response.respond(.text("hello \(request.pathParameters["name"] ?? "")\n"))
/// }
/// let server = HTTPServer(router: router)          // 127.0.0.1, ephemeral port
/// try server.start()
/// print(server.baseURL)                            // http://127.0.0.1:49731
/// // ... send requests ...
/// server.stop()                                    // closes every connection, waits for workers
/// ```
///
/// Many servers may run in one process. A server runs once: after `stop()`, make a new one.
/// Dropping the last reference to a running server stops it.
public final class HTTPServer: Sendable {
    public let configuration: Configuration
    private let core: ServerCore

    public init(configuration: Configuration = Configuration(), handler: @escaping HTTPHandler) {
        self.configuration = configuration
        self.core = ServerCore(configuration: configuration, handler: handler)
    }

    /// A server that dispatches through `router` (404 and 405 answered for you).
    public convenience init(configuration: Configuration = Configuration(), router: HTTPRouter) {
        self.init(configuration: configuration, handler: router.handle)
    }

    deinit {
        core.stop()
    }

    /// Binds, listens and starts accepting. Returns the bound port (the ephemeral one when the
    /// configured port is 0).
    @discardableResult
    public func start() throws -> Int {
        try core.start()
    }

    /// The bound port; 0 before `start()`.
    public var port: Int { core.boundPort }

    /// `http://host:port` of the listener, with IPv6 hosts in brackets.
    public var baseURL: URL {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return URL(string: "http://\(host):\(port)") ?? URL(fileURLWithPath: "/")
    }

    /// Connections open right now.
    public var openConnectionCount: Int { core.openConnectionCount }

    /// Waits until at most `count` connections are open, up to `timeout` seconds.
    /// Returns false on timeout. For tests and tools that must see a client's departure.
    public func waitForOpenConnections(atMost count: Int, timeout: Double) -> Bool {
        core.waitForOpenConnections(atMost: count, timeout: timeout)
    }

    /// Stops accepting, closes the listener and every open connection, wakes paused handlers and
    /// waits (up to `configuration.stopTimeout`) for worker threads to end. Returns false if some
    /// handler was still running at the deadline. Safe to call more than once.
    @discardableResult
    public func stop() -> Bool {
        core.stop()
    }
}

/// The state shared by the listener thread, the worker threads and the owning `HTTPServer`.
private final class ServerCore: @unchecked Sendable {
    private enum Phase: String {
        case idle, running, stopping, stopped
    }

    let configuration: HTTPServer.Configuration
    let handler: HTTPHandler
    let stopSignal = StopSignal()
    // Guards everything below. Connection descriptors are closed under it, so `stop()` never
    // shuts down a descriptor number that has been reused.
    private let condition = NSCondition()
    private var phase = Phase.idle
    private var port = 0
    private var listener: Int32 = -1
    private var wake: (read: Int32, write: Int32) = (-1, -1)
    private var connections = Set<Int32>()
    private var listenerRunning = false

    init(configuration: HTTPServer.Configuration, handler: @escaping HTTPHandler) {
        self.configuration = configuration
        self.handler = handler
    }

    var boundPort: Int { locked { port } }
    var openConnectionCount: Int { locked { connections.count } }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }

    func start() throws -> Int {
        try locked {
            guard phase == .idle else { throw HTTPServerError.notStartable(state: phase.rawValue) }
            let bound = try SocketGlue.listen(host: configuration.host, port: configuration.port,
                                              backlog: configuration.listenBacklog)
            do {
                wake = try SocketGlue.makePipe()
            } catch {
                SocketGlue.closeDescriptor(bound.descriptor)
                throw error
            }
            listener = bound.descriptor
            port = bound.port
            phase = .running
            listenerRunning = true
        }
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "NetTapServer.accept.\(port)"
        thread.start()
        return port
    }

    private func acceptLoop() {
        let (listener, wakeRead) = locked { (self.listener, wake.read) }
        acceptance: while true {
            let ready = SocketGlue.waitReadable(listener, orWake: wakeRead)
            if ready.woken || stopSignal.isRaised { break }
            while true {
                switch SocketGlue.accept(listener) {
                case .wouldBlock:
                    continue acceptance
                case .failed(let error):
                    configuration.diagnostics?("accept on port \(port): \(error)")
                    // Out of descriptors or similar: back off briefly instead of spinning.
                    if !stopSignal.wait(seconds: 0.05) { break acceptance }
                    continue acceptance
                case .accepted(let descriptor, let remote):
                    admit(descriptor, remote)
                }
            }
        }
        locked {
            SocketGlue.closeDescriptor(listener)
            self.listener = -1
            listenerRunning = false
            condition.broadcast()
        }
    }

    private func admit(_ descriptor: Int32, _ remote: HTTPServerRequest.RemoteAddress) {
        enum Admission { case accept, full, stopping }
        let admission: Admission = locked {
            if phase != .running { return .stopping }
            if connections.count >= configuration.limits.maxConnections { return .full }
            connections.insert(descriptor)
            return .accept
        }
        switch admission {
        case .stopping:
            SocketGlue.closeDescriptor(descriptor)
        case .full:
            let body = "503 Service Unavailable: more than \(configuration.limits.maxConnections) open connections\n"
            let answer = Array(("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body).utf8)
            try? SocketGlue.configureConnection(descriptor, receiveTimeout: 1, sendTimeout: 1)
            try? answer.withUnsafeBytes { try SocketGlue.sendAll(descriptor, $0) }
            SocketGlue.closeDescriptor(descriptor)
        case .accept:
            do {
                try SocketGlue.configureConnection(descriptor, receiveTimeout: configuration.idleTimeout,
                                                   sendTimeout: configuration.sendTimeout)
            } catch {
                configuration.diagnostics?("configuring connection from \(remote): \(error)")
                release(descriptor)
                return
            }
            let thread = Thread { [self] in
                // Built on its own thread: a connection never crosses threads.
                HTTPConnection(descriptor: descriptor, remoteAddress: remote, configuration: configuration,
                               handler: handler, stopSignal: stopSignal).run()
                release(descriptor)
            }
            thread.name = "NetTapServer.connection.\(port)"
            thread.start()
        }
    }

    private func release(_ descriptor: Int32) {
        locked {
            connections.remove(descriptor)
            SocketGlue.closeDescriptor(descriptor)
            condition.broadcast()
        }
    }

    func waitForOpenConnections(atMost count: Int, timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        return locked {
            while connections.count > count {
                if !condition.wait(until: deadline) { return connections.count <= count }
            }
            return true
        }
    }

    @discardableResult
    func stop() -> Bool {
        let wasRunning: Bool = locked {
            switch phase {
            case .idle:
                phase = .stopped
                return false
            case .running:
                phase = .stopping
                return true
            case .stopping, .stopped:
                return false
            }
        }
        guard wasRunning else { return locked { connections.isEmpty } }
        stopSignal.raise()
        let deadline = Date(timeIntervalSinceNow: configuration.stopTimeout)
        return locked {
            SocketGlue.writeByte(wake.write)
            while listenerRunning {
                if !condition.wait(until: deadline) { break }
            }
            // The listener is closed (no new connections); now end every open one.
            for descriptor in connections { SocketGlue.shutdownBoth(descriptor) }
            while !connections.isEmpty {
                if !condition.wait(until: deadline) { break }
            }
            if !listenerRunning {
                SocketGlue.closeDescriptor(wake.read)
                SocketGlue.closeDescriptor(wake.write)
                wake = (-1, -1)
            }
            phase = .stopped
            return connections.isEmpty && !listenerRunning
        }
    }
}
