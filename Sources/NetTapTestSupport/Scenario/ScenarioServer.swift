import Foundation
import NetTapCore
import NetTapServer

/// A loopback HTTP server with fixed, well-known routes for transparency and stress tests, and a
/// log of every request it received so a test can assert what reached the wire.
///
/// ```swift
/// let scenario = try ScenarioServer()
/// defer { scenario.stop() }
/// let (data, response) = try await URLSession.shared.data(from: scenario.url("/bytes/1024?seed=3"))
/// #expect(data == ScenarioBytes.bytes(count: 1024, seed: 3))
/// #expect(scenario.receivedRequests.last?.target == "/bytes/1024?seed=3")
/// ```
///
/// Routes (see docs/server.md for the full table): `/status/:code`, `/echo`, `/echo/raw`,
/// `/bytes/:n?seed=S`, `/chunked/:n?seed=S`, `/gzip/:n`, `/text/:n`, `/redirect/:code?to=PATH`,
/// `/redirect-chain/:n`, `/delay/:ms`, `/slow-body/:n?chunk=C&interval_ms=I&seed=S`,
/// `/auth/basic?user=U&password=P[&challenge=none]`, `/cookies/set?name=value`, `/cookies`, `/cache/etag`,
/// `/headers`, `/drop`, `/json`.
public final class ScenarioServer: Sendable {
    /// One request as the server saw it.
    public struct ReceivedRequest: Sendable, Equatable {
        public var method: String
        /// Path and query as sent, e.g. `/bytes/10?seed=1`.
        public var target: String
        public var headers: HTTPHeaders
        public var body: Data
        public var version: HTTPVersion
        /// The client's port, which tells connections apart (same port: same connection).
        public var remotePort: Int
    }

    /// The `/json` document: ordinary fields plus `token`, `password` and `access_token`, for redaction tests.
    public static let sampleJSON = Data(#"""
    {"id":42,"name":"Ada Lovelace","email":"ada@example.com","token":"tok_live_5f2b9c","password":"hunter2","profile":{"city":"London","access_token":"at_9d8e7f","languages":["en","fr"]},"items":[{"sku":"A-1","quantity":2,"price":9.5},{"sku":"B-7","quantity":1,"price":120}],"active":true,"note":null}
    """#.utf8)

    /// The entity tag `/cache/etag` serves.
    public static let entityTag = "\"nettap-etag-v1\""

    private let server: HTTPServer
    private let log: RequestLog

    /// Starts the server on 127.0.0.1 at an ephemeral port.
    public init(configuration: HTTPServer.Configuration = HTTPServer.Configuration()) throws {
        let log = RequestLog()
        let router = ScenarioRoutes.router()
        server = HTTPServer(configuration: configuration) { request, writer in
            log.record(request)
            try router.handle(request, writer)
        }
        self.log = log
        try server.start()
    }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: URL { server.baseURL }
    public var port: Int { server.port }

    /// The URL of `pathAndQuery` (e.g. `/bytes/10?seed=2`) on this server.
    public func url(_ pathAndQuery: String) -> URL {
        URL(string: baseURL.absoluteString + pathAndQuery) ?? baseURL
    }

    /// Every request received so far, in arrival order.
    public var receivedRequests: [ReceivedRequest] { log.requests }

    /// Received requests whose path (the target without its query) is `path`.
    public func receivedRequests(path: String) -> [ReceivedRequest] {
        log.requests.filter { $0.target.split(separator: "?", maxSplits: 1).first.map(String.init) == path }
    }

    /// Waits until at least `count` requests have arrived in all, up to `timeout` seconds.
    /// Returns false on timeout.
    public func waitForRequests(count: Int, timeout: Double) -> Bool {
        log.wait(count: count, timeout: timeout)
    }

    /// The async form of `waitForRequests(count:timeout:)`: waits on its own thread, so the
    /// caller's executor stays free.
    public func waitForRequests(count: Int, timeout: Double) async -> Bool {
        let log = log
        return await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: log.wait(count: count, timeout: timeout)) }.start()
        }
    }

    /// Forgets the received requests.
    public func clearLog() {
        log.clear()
    }

    /// Connections open right now.
    public var openConnectionCount: Int { server.openConnectionCount }

    /// The underlying server, for tests that need its connection bookkeeping.
    public var httpServer: HTTPServer { server }

    /// Stops the server (also done when the last reference goes away).
    @discardableResult
    public func stop() -> Bool {
        server.stop()
    }
}

/// The thread-safe request log behind `ScenarioServer.receivedRequests`.
private final class RequestLog: @unchecked Sendable {
    private let condition = NSCondition()
    private var entries: [ScenarioServer.ReceivedRequest] = []

    func record(_ request: HTTPServerRequest) {
        let entry = ScenarioServer.ReceivedRequest(
            method: request.method, target: request.target, headers: request.headers, body: request.body,
            version: request.version, remotePort: request.remoteAddress.port)
        condition.lock()
        entries.append(entry)
        condition.broadcast()
        condition.unlock()
    }

    var requests: [ScenarioServer.ReceivedRequest] {
        condition.lock()
        defer { condition.unlock() }
        return entries
    }

    func clear() {
        condition.lock()
        entries.removeAll()
        condition.unlock()
    }

    func wait(count: Int, timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while entries.count < count {
            if !condition.wait(until: deadline) { return entries.count >= count }
        }
        return true
    }
}
