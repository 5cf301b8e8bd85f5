#if !canImport(Darwin)
import Foundation
import FoundationNetworking
import NetTapCore

/// The one long-lived session that carries requests a rule changed (rewritten URL, edited headers):
/// a task cannot be given a different request once created, so those requests are re-issued here.
///
/// Its loader is `RelayProtocol`, which observes the native loader of each forwarded task exactly
/// as the capture engine does, and hands the outcome to the `ForwardRelay` that asked for it, on
/// URLSession's work queue, where the relay may call the original task's client.
final class ForwardingSession: @unchecked Sendable {
    static let shared = ForwardingSession()

    private let session: URLSession
    private let relays = Protected<[ObjectIdentifier: ForwardRelay]>([:])

    private init() {
        let configuration = URLSessionConfiguration.default
        configuration.protocolClasses = [RelayProtocol.self] + NativeLoaders.classes
        session = URLSession(configuration: configuration)
    }

    /// Starts `request` for `relay` after `delay` seconds, off URLSession's work queue (creating a
    /// task on it would deadlock).
    func start(_ request: URLRequest, for relay: ForwardRelay, after delay: TimeInterval) {
        DispatchQueue.global().asyncAfter(deadline: .now() + max(0, delay)) { [self] in
            guard !relay.isCancelled else { return }
            // A completion handler makes the native loader keep the body in memory and hand it over
            // whole (NativeProtocol.swift, `.inMemory` drain); the relay reads it from the observer.
            let task = session.dataTask(with: request) { _, _, _ in }
            relays.withLock { $0[ObjectIdentifier(task)] = relay }
            relay.attach(task)
            task.resume()
        }
    }

    fileprivate func relay(for task: URLSessionTask) -> ForwardRelay? {
        relays.withLock { $0[ObjectIdentifier(task)] }
    }

    fileprivate func forget(_ task: URLSessionTask) {
        _ = relays.withLock { $0.removeValue(forKey: ObjectIdentifier(task)) }
    }
}

/// Carries one forwarded request's outcome back to the original task.
final class ForwardRelay: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionTask?
    private var cancelled = false
    private var body = Data()
    /// Called on URLSession's work queue with the forwarded response and body, or the error.
    private let completion: (URLResponse?, Data, Error?) -> Void

    init(completion: @escaping (URLResponse?, Data, Error?) -> Void) {
        self.completion = completion
    }

    var isCancelled: Bool { lock.withLock { cancelled } }

    func attach(_ task: URLSessionTask) {
        lock.withLock { self.task = task }
    }

    /// Cancels the forwarded task. Safe on the work queue: the task API is called elsewhere.
    func cancel() {
        let task = lock.withLock { () -> URLSessionTask? in
            cancelled = true
            return self.task
        }
        if let task { DispatchQueue.global().async { task.cancel() } }
    }

    fileprivate func didLoad(_ data: Data) {
        lock.withLock { body = data }
    }

    fileprivate func finish(response: URLResponse?, error: Error?) {
        let (data, cancelled) = lock.withLock { (body, self.cancelled) }
        guard !cancelled else { return }
        completion(response, data, error)
    }
}

/// The forwarding session's loader: the native loader, observed.
private final class RelayProtocol: URLProtocol, LoaderObserver {
    private var inner: URLProtocol?
    private var observer: ObservingClient?

    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        if let inner { return inner.startLoading() }
        guard let task, let client else { return }
        let observer = ObservingClient(realClient: client, observer: self)
        self.observer = observer
        guard let loader = NativeLoaders.loader(for: task, request: task.originalRequest ?? request, cachedResponse: cachedResponse, client: observer) else {
            client.urlProtocol(self, didFailWithError: URLError(.unsupportedURL))
            return
        }
        inner = loader
        loader.startLoading()
    }

    override func stopLoading() {
        inner?.stopLoading()
        if let task, task.state == .canceling {
            ForwardingSession.shared.relay(for: task)?.finish(response: nil, error: task.error ?? URLError(.cancelled))
            ForwardingSession.shared.forget(task)
        }
    }

    func loaderDidReceive(_ response: URLResponse) {}

    func loaderDidLoad(_ data: Data) {
        if let task { ForwardingSession.shared.relay(for: task)?.didLoad(data) }
    }

    func loaderDidFinish(_ loader: URLProtocol) -> Bool {
        if let task {
            ForwardingSession.shared.relay(for: task)?.finish(response: task.response, error: nil)
            ForwardingSession.shared.forget(task)
        }
        return true
    }

    func loaderDidFail(_ error: Error, loader: URLProtocol) -> Bool {
        if let task {
            ForwardingSession.shared.relay(for: task)?.finish(response: nil, error: error)
            ForwardingSession.shared.forget(task)
        }
        return true
    }
}
#endif
