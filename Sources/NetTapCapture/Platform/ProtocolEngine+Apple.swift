#if canImport(Darwin)
// Apple platforms only: Linux CI does not compile this file. Keep it small; every decision it
// makes is shared with the Linux engine through ExchangeRecorder.
import Foundation
import NetTapCore

/// The Apple engine behind `NetTapURLProtocol`: it forwards each request through one long-lived
/// forwarding session (never one per request) and relays every event to URLSession's client on the
/// thread that started loading, as Apple's URLProtocol contract asks.
///
/// Apple's client supports redirects (`wasRedirectedTo`) and appends `didLoad` chunks, so the usual
/// forwarding design is sound here, unlike on Linux (see ProtocolEngine+Linux.swift).
final class ProtocolEngine: @unchecked Sendable {
    private unowned let owner: NetTapURLProtocol
    private let lock = NSLock()
    private var recorder: ExchangeRecorder?
    private var forwardedTask: URLSessionTask?
    private var clientRunLoop: CFRunLoop?
    private var clientModes: [CFRunLoopMode] = [.defaultMode]

    init(owner: NetTapURLProtocol) {
        self.owner = owner
    }

    static func canLoad(_ request: URLRequest) -> Bool { true }

    static func registerGlobally() -> Bool {
        URLProtocol.registerClass(NetTapURLProtocol.self)
    }

    static func noteConfiguredClasses(after classes: [AnyClass]) {}

    func start() {
        clientRunLoop = CFRunLoopGetCurrent()
        if let mode = RunLoop.current.currentMode {
            clientModes = [CFRunLoopMode(mode.rawValue as CFString)]
        }
        var request = owner.request
        // Apple moves httpBody into httpBodyStream before a URLProtocol sees it (fact 8): read it once.
        var body = ExchangeRecorder.bodySource(of: request)
        if request.httpBody == nil, let stream = request.httpBodyStream {
            let data = Self.readAll(stream)
            request.httpBodyStream = nil
            request.httpBody = data
            body = .data(data)
        }
        let kind: TaskKind = owner.task is URLSessionUploadTask ? .upload : owner.task is URLSessionDownloadTask ? .download : .data
        let recorder = ExchangeRecorder(tap: .shared, request: request, path: .urlProtocol, kind: kind, requestBody: body)
        guard let marked = (request as NSURLRequest).mutableCopy() as? NSMutableURLRequest else { return }
        URLProtocol.setProperty(true, forKey: NetTapURLProtocol.handledKey, in: marked)
        let task = ForwardingSession.shared.start(marked as URLRequest, engine: self)
        lock.withLock {
            self.recorder = recorder
            self.forwardedTask = task
        }
    }

    func stop() {
        let (task, recorder) = lock.withLock { (forwardedTask, self.recorder) }
        task?.cancel()
        recorder?.finish(error: URLError(.cancelled))
    }

    private static func readAll(_ stream: InputStream) -> Data {
        var data = Data()
        stream.open()
        defer { stream.close() }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            data.append(buffer, count: count)
        }
        return data
    }

    /// Runs `block` on the thread that called startLoading.
    private func onClientThread(_ block: @escaping () -> Void) {
        guard let runLoop = clientRunLoop else { return block() }
        for mode in clientModes {
            CFRunLoopPerformBlock(runLoop, mode.rawValue, block)
        }
        CFRunLoopWakeUp(runLoop)
    }

    // MARK: Events from the forwarding session

    func didRedirect(_ response: HTTPURLResponse, to request: URLRequest) {
        guard let unmarked = (request as NSURLRequest).mutableCopy() as? NSMutableURLRequest else { return }
        URLProtocol.removeProperty(forKey: NetTapURLProtocol.handledKey, in: unmarked)
        let recorder = lock.withLock { self.recorder }
        recorder?.didRedirect(RedirectHop(url: response.url?.absoluteString ?? "", statusCode: response.statusCode, location: request.url?.absoluteString ?? ""))
        recorder?.finish(response: response)
        // The loading system re-issues the redirected request through a new protocol instance,
        // asking the app's delegate first, exactly as without NetTap.
        onClientThread { [owner] in
            owner.client?.urlProtocol(owner, wasRedirectedTo: unmarked as URLRequest, redirectResponse: response)
        }
    }

    func didReceive(_ challenge: URLAuthenticationChallenge, completion: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        let sender = ChallengeRelay(completion: completion)
        let relayed = URLAuthenticationChallenge(authenticationChallenge: challenge, sender: sender)
        onClientThread { [owner] in owner.client?.urlProtocol(owner, didReceive: relayed) }
    }

    func didReceive(_ response: URLResponse) {
        lock.withLock { recorder }?.didReceive(response: response)
        onClientThread { [owner] in owner.client?.urlProtocol(owner, didReceive: response, cacheStoragePolicy: .notAllowed) }
    }

    func didReceive(_ data: Data) {
        lock.withLock { recorder }?.didReceive(chunk: data)
        onClientThread { [owner] in owner.client?.urlProtocol(owner, didLoad: data) }
    }

    func didCollect(_ metrics: URLSessionTaskMetrics) {
        lock.withLock { recorder }?.setMetrics(TimingMetrics(metrics))
    }

    func didComplete(task: URLSessionTask, error: Error?) {
        lock.withLock { recorder }?.finish(response: task.response, error: error, bytesSent: task.countOfBytesSent)
        onClientThread { [owner] in
            if let error {
                owner.client?.urlProtocol(owner, didFailWithError: error)
            } else {
                owner.client?.urlProtocolDidFinishLoading(owner)
            }
        }
    }
}

/// Answers a relayed authentication challenge by completing the forwarding session's handler.
private final class ChallengeRelay: NSObject, URLAuthenticationChallengeSender, @unchecked Sendable {
    private let completion: @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    private let answered = Protected(false)

    init(completion: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        self.completion = completion
    }

    private func answer(_ disposition: URLSession.AuthChallengeDisposition, _ credential: URLCredential?) {
        let first = answered.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        if first { completion(disposition, credential) }
    }

    func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) { answer(.useCredential, credential) }
    func continueWithoutCredential(for challenge: URLAuthenticationChallenge) { answer(.useCredential, nil) }
    func cancel(_ challenge: URLAuthenticationChallenge) { answer(.cancelAuthenticationChallenge, nil) }
    func performDefaultHandling(for challenge: URLAuthenticationChallenge) { answer(.performDefaultHandling, nil) }
    func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) { answer(.rejectProtectionSpace, nil) }
}

/// The one long-lived session that carries forwarded requests, and its delegate.
private final class ForwardingSession: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    static let shared = ForwardingSession()

    private var session: URLSession!
    private let engines = Protected<[Int: ProtocolEngine]>([:])

    override init() {
        super.init()
        let configuration = URLSessionConfiguration.default
        configuration.protocolClasses = (configuration.protocolClasses ?? []).filter { $0 != NetTapURLProtocol.self }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "NetTap.forwarding"
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
    }

    func start(_ request: URLRequest, engine: ProtocolEngine) -> URLSessionTask {
        let task = session.dataTask(with: request)
        engines.withLock { $0[task.taskIdentifier] = engine }
        task.resume()
        return task
    }

    private func engine(_ task: URLSessionTask) -> ProtocolEngine? {
        engines.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        engine(task)?.didRedirect(response, to: request)
        completionHandler(nil)
        task.cancel()
        _ = engines.withLock { $0.removeValue(forKey: task.taskIdentifier) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge, completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        guard let engine = engine(task) else { return completionHandler(.performDefaultHandling, nil) }
        engine.didReceive(challenge, completion: completionHandler)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse, completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        engine(dataTask)?.didReceive(response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        engine(dataTask)?.didReceive(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        engine(task)?.didCollect(metrics)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let engine = engines.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        engine?.didComplete(task: task, error: error)
    }
}

extension TimingMetrics {
    init(_ metrics: URLSessionTaskMetrics) {
        let last = metrics.transactionMetrics.last
        self.init(
            fetchStart: last?.fetchStartDate ?? metrics.taskInterval.start,
            domainLookupStart: last?.domainLookupStartDate, domainLookupEnd: last?.domainLookupEndDate,
            connectStart: last?.connectStartDate, connectEnd: last?.connectEndDate,
            secureConnectionStart: last?.secureConnectionStartDate, secureConnectionEnd: last?.secureConnectionEndDate,
            requestStart: last?.requestStartDate, requestEnd: last?.requestEndDate,
            responseStart: last?.responseStartDate, responseEnd: last?.responseEndDate ?? metrics.taskInterval.end,
            remoteAddress: last?.remoteAddress, remotePort: last?.remotePort,
            isReusedConnection: last?.isReusedConnection, networkProtocol: last?.networkProtocolName,
            bytesSent: last.map { $0.countOfRequestBodyBytesSent }, bytesReceived: last.map { $0.countOfResponseBodyBytesReceived })
    }
}
#endif
