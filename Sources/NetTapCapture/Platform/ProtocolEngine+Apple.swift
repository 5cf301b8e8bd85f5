#if canImport(Darwin)
// Apple platforms only: Linux CI does not compile this file. Keep it small; every decision it
// makes is shared with the Linux engine through ExchangeRecorder.
import Foundation
import NetTapCore
import NetTapRules

/// The Apple engine behind `NetTapURLProtocol`: it forwards each request through one long-lived
/// forwarding session (never one per request) and relays every event to URLSession's client on the
/// thread that started loading, as Apple's URLProtocol contract asks.
///
/// Apple's client supports redirects (`wasRedirectedTo`) and appends `didLoad` chunks, so the usual
/// forwarding design is sound here, unlike on Linux (see ProtocolEngine+Linux.swift).
final class ProtocolEngine: @unchecked Sendable {
    private unowned let owner: URLProtocol
    private let captures: Bool
    private let lock = NSLock()
    private var decision = RuleDecision()
    private var startedAt = Date()
    private var recorder: ExchangeRecorder?
    private var forwardedTask: URLSessionTask?
    private var clientRunLoop: CFRunLoop?
    private var clientModes: [CFRunLoopMode] = [.defaultMode]

    init(owner: URLProtocol, captures: Bool) {
        self.owner = owner
        self.captures = captures
    }

    static func canLoad(_ request: URLRequest) -> Bool { true }

    static func registerGlobally() -> Bool {
        URLProtocol.registerClass(NetTapURLProtocol.self)
    }

    static func noteConfiguredClasses(after classes: [AnyClass]) {}

    func start() {
        clientRunLoop = CFRunLoopGetCurrent()
        if let mode = RunLoop.current.currentMode {
            clientModes = [CFRunLoopMode(rawValue: mode.rawValue as CFString)]
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
        startedAt = Date()
        let kind: TaskKind = owner.task is URLSessionUploadTask ? .upload : owner.task is URLSessionDownloadTask ? .download : .data
        let rules = RulesRuntime.shared.snapshot
        decision = rules.decide(request)
        var targets = decision.recordTargets.map(\.harFile)
        var sessionRecorder: ExchangeRecorder?
        if let task = owner.task { sessionRecorder = SessionDelegateProxy.sessionRecorder(of: task) }
        let capturing = captures && sessionRecorder == nil && (!rules.isActive || NetTap.shared.shouldCapture(request))
        var notes = decision.modifications
        let answer = decision.isEmpty ? nil : RuleAnswer.make(for: decision, request: request, rules: rules, recordTargets: &targets, notes: &notes)
        let recorder = (capturing || (!targets.isEmpty && sessionRecorder == nil))
            ? ExchangeRecorder(tap: .shared, request: request, path: .urlProtocol, kind: kind, requestBody: body) : nil
        for target in [recorder, sessionRecorder].compactMap({ $0 }) {
            notes.forEach(target.addModification)
            target.addRecordTargets(targets)
        }
        lock.withLock { self.recorder = recorder }
        let latency = decision.throttle?.latency ?? 0
        if let answer {
            var due = latency + answer.delay
            if case .response(_, let data) = answer.answer, let rate = decision.throttle?.downloadBytesPerSecond, rate > 0 {
                due += Double(data.count) / Double(rate)
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + due) { [self] in
                switch answer.answer {
                case .response(let response, let data):
                    recorder?.didReceive(response: response)
                    recorder?.didLoad(wholeBody: data)
                    recorder?.finish(response: response)
                case .failure(let error):
                    recorder?.finish(error: error)
                }
                onClientThread { [self] in
                    guard let client = owner.client else { return }
                    answer.answer.deliver(to: client, from: owner)
                }
            }
            return
        }
        guard let marked = (decision.rewrite(request) as NSURLRequest).mutableCopy() as? NSMutableURLRequest else { return }
        URLProtocol.setProperty(true, forKey: NetTapURLProtocol.handledKey, in: marked)
        let forwarded = marked as URLRequest
        let proxy = decision.proxy
        DispatchQueue.global().asyncAfter(deadline: .now() + latency) { [self] in
            let task = ForwardingSession.shared(for: proxy).start(forwarded, engine: self)
            lock.withLock { self.forwardedTask = task }
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
        onClientThread { [self] in
            owner.client?.urlProtocol(owner, wasRedirectedTo: unmarked as URLRequest, redirectResponse: response)
        }
    }

    func didReceive(_ challenge: URLAuthenticationChallenge, completion: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        let sender = ChallengeRelay(completion: completion)
        let relayed = URLAuthenticationChallenge(authenticationChallenge: challenge, sender: sender)
        onClientThread { [self] in owner.client?.urlProtocol(owner, didReceive: relayed) }
    }

    func didReceive(_ response: URLResponse) {
        var seen = response
        if let http = response as? HTTPURLResponse, let url = http.url, !decision.responseHeaderEdits.isEmpty {
            var headers = HTTPHeaders.fromFoundation(http.allHeaderFields)
            for edit in decision.responseHeaderEdits { edit.apply(to: &headers) }
            seen = HTTPURLResponse(url: url, statusCode: http.statusCode, httpVersion: "HTTP/1.1", headerFields: headers.dictionary) ?? http
        }
        lock.withLock { recorder }?.didReceive(response: seen)
        onClientThread { [self] in owner.client?.urlProtocol(owner, didReceive: seen, cacheStoragePolicy: .notAllowed) }
    }

    func didReceive(_ data: Data) {
        lock.withLock { recorder }?.didReceive(chunk: data)
        onClientThread { [self] in owner.client?.urlProtocol(owner, didLoad: data) }
    }

    func didCollect(_ metrics: URLSessionTaskMetrics) {
        lock.withLock { recorder }?.setMetrics(TimingMetrics(metrics))
    }

    func didComplete(task: URLSessionTask, error: Error?) {
        // A throttled download is handed over when its bytes would have arrived at the set rate.
        if let rate = decision.throttle?.downloadBytesPerSecond, rate > 0 {
            let due = startedAt.addingTimeInterval((decision.throttle?.latency ?? 0) + Double(task.countOfBytesReceived) / Double(rate))
            let wait = due.timeIntervalSinceNow
            if wait > 0 {
                DispatchQueue.global().asyncAfter(deadline: .now() + wait) { self.complete(task: task, error: error) }
                return
            }
        }
        complete(task: task, error: error)
    }

    private func complete(task: URLSessionTask, error: Error?) {
        lock.withLock { recorder }?.finish(response: task.response, error: error, bytesSent: task.countOfBytesSent)
        onClientThread { [self] in
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

/// The long-lived sessions that carry forwarded requests: one without a proxy, and one per proxy
/// that `proxy` rules name (a session's proxy is part of its configuration).
private final class ForwardingSession: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private static let sessions = Protected<[ProxyTarget?: ForwardingSession]>([:])

    static func shared(for proxy: ProxyTarget?) -> ForwardingSession {
        sessions.withLock { sessions in
            if let existing = sessions[proxy] { return existing }
            let created = ForwardingSession(proxy: proxy)
            sessions[proxy] = created
            return created
        }
    }

    private var session: URLSession!
    private let engines = Protected<[Int: ProtocolEngine]>([:])

    init(proxy: ProxyTarget?) {
        super.init()
        let configuration = URLSessionConfiguration.default
        configuration.protocolClasses = (configuration.protocolClasses ?? []).filter { $0 != NetTapURLProtocol.self && $0 != NetTapRulesProtocol.self }
        if let proxy {
            configuration.connectionProxyDictionary = proxy.connectionProxyDictionary
        }
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

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        engine(task)?.didRedirect(response, to: request)
        completionHandler(nil)
        task.cancel()
        _ = engines.withLock { $0.removeValue(forKey: task.taskIdentifier) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge, completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        guard let engine = engine(task) else { return completionHandler(.performDefaultHandling, nil) }
        engine.didReceive(challenge, completion: completionHandler)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse, completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
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

extension ProxyTarget {
    /// The session proxy settings for this target, for both http and https requests (the string
    /// keys are those of CFNetwork's kCFNetworkProxiesHTTP* and HTTPS* constants, which iOS does
    /// not all export).
    var connectionProxyDictionary: [AnyHashable: Any] {
        ["HTTPEnable": 1, "HTTPProxy": host, "HTTPPort": port, "HTTPSEnable": 1, "HTTPSProxy": host, "HTTPSPort": port]
    }
}
#endif
