#if !canImport(Darwin)
import Foundation
import FoundationNetworking
import NetTapCore

/// Runs blocks on URLSession's work queue, later: what rule delays and throttling need to call a
/// `URLProtocolClient` after `startLoading()` has returned.
///
/// corelibs accepts client calls only on the serial queue that every session's work queue targets
/// (linux-urlsession-facts.md, facts 2 and 3), and offers no public way to enqueue work there. A
/// URLProtocol's `startLoading()` does run there, so the pump keeps a private session whose only
/// protocol is `PumpProtocol`: to run due blocks, it starts a task on that session, and the task's
/// `startLoading()` runs them. Any session's work queue will do, because they all target one serial
/// queue (URLSession.swift: `DispatchQueue(label: "URLSession<\(identifier)>", target: Self.sharedQueue)`).
/// One pump task serves every block due at that moment.
final class WorkQueuePump: @unchecked Sendable {
    static let shared = WorkQueuePump()

    static let scheme = "nettap-pump"
    private let session: URLSession
    private let pending = Protected<(blocks: [() -> Void], pumping: Bool)>(([], false))

    private init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [PumpProtocol.self]
        session = URLSession(configuration: configuration)
    }

    /// Runs `block` on URLSession's work queue after `delay` seconds (or as soon as possible).
    /// Never call URLSession task APIs from `block`: they `sync` onto the same queue.
    func run(after delay: TimeInterval, _ block: @escaping @Sendable () -> Void) {
        if delay > 0 {
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { self.enqueue(block) }
        } else {
            DispatchQueue.global().async { self.enqueue(block) }
        }
    }

    private func enqueue(_ block: @escaping @Sendable () -> Void) {
        let mustStart = pending.withLock { state -> Bool in
            state.blocks.append(block)
            if state.pumping { return false }
            state.pumping = true
            return true
        }
        if mustStart, let url = URL(string: "\(Self.scheme)://run") {
            // Created off the work queue: creating a task does `workQueue.sync`.
            session.dataTask(with: url) { _, _, _ in }.resume()
        }
    }

    /// Called by `PumpProtocol.startLoading()`, on the work queue.
    fileprivate func runPending() {
        let blocks = pending.withLock { state -> [() -> Void] in
            defer {
                state.blocks = []
                state.pumping = false
            }
            return state.blocks
        }
        for block in blocks { block() }
    }
}

/// The pump's only loader: runs due blocks, then completes its own task.
private final class PumpProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool {
        request.url?.scheme == WorkQueuePump.scheme
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        WorkQueuePump.shared.runPending()
        guard let url = request.url, let response = HTTPURLResponse(url: url, statusCode: 204, httpVersion: "HTTP/1.1", headerFields: [:]) else {
            client?.urlProtocol(self, didFailWithError: URLError(.unknown))
            return
        }
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: Data())
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}
}
#endif

#if !canImport(Darwin)
/// Carries a non-Sendable object into a block that runs on URLSession's work queue, where the
/// object lives anyway.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
#endif
