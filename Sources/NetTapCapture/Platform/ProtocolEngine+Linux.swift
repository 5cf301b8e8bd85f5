#if !canImport(Darwin)
import Foundation
import FoundationNetworking
import NetTapCore
import NetTapRules

/// The Linux engine behind `NetTapURLProtocol` and `NetTapRulesProtocol`.
///
/// Without rules it wraps the native HTTP loader of the request's own task and observes it through
/// an interposed client (`ObservingClient`): nothing is re-issued, and every client call is made by
/// corelibs' own loader on its own queue. docs/capture-on-linux.md explains why forwarding through a
/// second session is fragile here, and what this design cannot see.
///
/// With rules, one of three modes:
/// - observe (paced): throttling delays the native loader's start and the hand-over of its end;
/// - answer: a mock, local file, block, replay hit or throttle failure is delivered from
///   `startLoading()`, or later through `WorkQueuePump` when a delay applies;
/// - forward: a rewritten request (URL, headers) is re-issued on `ForwardingSession` and its outcome
///   handed to the original task on URLSession's work queue.
/// Every method runs on URLSession's work queue; task APIs (`cancel`, `resume`) are never called
/// from it, because they `sync` onto that same queue.
final class ProtocolEngine: LoaderObserver, @unchecked Sendable {
    // Confined to URLSession's work queue (see above); the pump runs its blocks there too.
    private unowned(unsafe) let owner: URLProtocol
    private let captures: Bool
    private var started = false
    private var ended = false
    private var startedAt = Date()
    private var inner: URLProtocol?
    private var observer: ObservingClient?
    private var relay: ForwardRelay?
    private var recorder: ExchangeRecorder?
    private var throttle: ThrottleProfile?
    private var uploadDelay: TimeInterval = 0
    private var isDownload = false
    /// Body size as the loader reported it (whole body, or the declared length for delegate tasks).
    private var loadedBytes = 0
    private var declaredBytes = 0

    init(owner: URLProtocol, captures: Bool) {
        self.owner = owner
        self.captures = captures
    }

    static func canLoad(_ request: URLRequest) -> Bool {
        NativeLoaders.loaderClass(for: request) != nil
    }

    /// Puts NetTap first in the process-wide registry. corelibs consults registered classes in
    /// registration order and `URLSession.shared` copies the list once, when first touched
    /// (linux-urlsession-facts.md, fact 1), so URLSession's own loaders are re-registered after NetTap.
    static func registerGlobally() -> Bool {
        for native in NativeLoaders.classes { URLProtocol.unregisterClass(native) }
        _ = URLProtocol.registerClass(NetTapURLProtocol.self)
        for native in NativeLoaders.classes { _ = URLProtocol.registerClass(native) }
        return URLSession.shared.configuration.protocolClasses?.first == NetTapURLProtocol.self
    }

    static func noteConfiguredClasses(after classes: [AnyClass]) {
        let custom = classes.compactMap { $0 as? URLProtocol.Type }
            .filter { candidate in !NativeLoaders.classes.contains { $0 == candidate } && candidate != NetTapURLProtocol.self && candidate != NetTapRulesProtocol.self }
        guard !custom.isEmpty else { return }
        NativeLoaders.downstream.withLock { list in
            for candidate in custom where !list.contains(where: { $0 == candidate }) { list.append(candidate) }
        }
    }

    // MARK: Start and stop

    func start() {
        if started {
            inner?.startLoading()  // resume after suspend
            return
        }
        started = true
        startedAt = Date()
        guard let task = owner.task, let client = owner.client else {
            owner.client?.urlProtocol(owner, didFailWithError: URLError(.unknown))
            return
        }
        let request = task.originalRequest ?? owner.request
        let kind = Self.kind(of: task)
        isDownload = kind == .download
        // NetTapSession records its own tasks through delegate callbacks; here only the rules apply.
        let sessionRecorder = SessionDelegateProxy.sessionRecorder(of: task)
        // An upload task's body, which the request does not carry: NetTapSession remembers its own;
        // for others, corelibs' copy inside the task (TaskBodyReader).
        let taskBody = kind == .upload && sessionRecorder?.upload == nil ? TaskBodyReader.body(of: task) : nil
        let upload = sessionRecorder?.upload ?? taskBody?.upload
        let rules = RulesRuntime.shared.snapshot
        // Rules match and re-send an upload's whole body, which the request does not carry.
        let uploadBytes = rules.isActive && request.httpBody == nil ? upload?.bytes() : nil
        let decision = rules.decide(request, body: uploadBytes)
        let capturing = captures && sessionRecorder == nil && (!rules.isActive || NetTap.shared.shouldCapture(request))
        var targets = decision.recordTargets.map(\.harFile)
        var notes = decision.modifications
        throttle = decision.throttle
        if let rate = throttle?.uploadBytesPerSecond, rate > 0 {
            if let size = request.httpBody?.count ?? upload?.size {
                uploadDelay = Double(size) / Double(rate)
            } else if request.httpBodyStream != nil || kind == .upload {
                notes.append(Self.skipped("upload pacing needs the body's size, and a streamed body's is unknown"))
            }
        }

        let hasForcedTimeout = (throttle?.forcedTimeout ?? 0) > 0
        var answer: (answer: RuleAnswer, delay: TimeInterval)?
        var forwarded: URLRequest?
        if !decision.isEmpty {
            if let made = RuleAnswer.make(
                for: decision, request: request, body: uploadBytes, rules: rules, recordTargets: &targets, notes: &notes) {
                if isDownload {
                    notes.append(Self.skipped("a download task on Linux can only be throttled: its file is URLSession's own"))
                } else {
                    answer = made
                }
            } else if decision.changesRequest || !decision.responseHeaderEdits.isEmpty || (!isDownload && hasForcedTimeout) {
                // A forced timeout forwards too: a forwarded request can be stopped cleanly, and a
                // native loader cannot be stopped by anyone but the task itself (docs/linux-foundation-notes.md).
                if isDownload {
                    notes.append(Self.skipped("a download task on Linux can only be throttled: its file is URLSession's own"))
                } else if kind == .upload, upload == nil, request.httpBody == nil {
                    notes.append(Self.skipped("an upload task's streamed body can be read only once, by URLSession"))
                } else {
                    var rewritten = decision.rewrite(request)
                    if rewritten.httpBody == nil, rewritten.httpBodyStream == nil { rewritten.httpBody = uploadBytes }
                    forwarded = rewritten
                }
            }
        }

        // Recording needs an exchange; NetTapSession's own recorder provides it for its tasks.
        if capturing || (!targets.isEmpty && sessionRecorder == nil) {
            recorder = ExchangeRecorder(
                tap: .shared, request: request, path: .urlProtocol, kind: kind,
                requestBody: Self.bodySource(of: request, kind: kind, taskBody: taskBody), startedAt: startedAt)
        }
        for target in [recorder, sessionRecorder].compactMap({ $0 }) {
            notes.forEach(target.addModification)
            target.addRecordTargets(targets)
        }
        scheduleForcedTimeout(client: client)

        if let answer {
            deliver(answer.answer, after: answer.delay, client: client)
        } else if let forwarded {
            forward(forwarded, responseEdits: decision.responseHeaderEdits, client: client)
        } else {
            observe(task: task, request: request, client: client)
        }
    }

    func stop() {
        inner?.stopLoading()
        relay?.cancel()
        // task.cancel() reports the cancellation to the client directly, past our observer;
        // stopLoading is where we learn of it.
        if let task = owner.task, task.state == .canceling, !ended {
            ended = true
            recorder?.finish(error: task.error ?? URLError(.cancelled), bytesSent: task.countOfBytesSent)
        }
    }

    // MARK: Modes

    private func observe(task: URLSessionTask, request: URLRequest, client: URLProtocolClient) {
        let observer = ObservingClient(realClient: client, observer: self)
        self.observer = observer
        guard let loader = NativeLoaders.loader(for: task, request: request, cachedResponse: owner.cachedResponse, client: observer) else {
            client.urlProtocol(owner, didFailWithError: URLError(.unsupportedURL))
            return
        }
        inner = loader
        let delay = (throttle?.latency ?? 0) + uploadDelay
        if delay > 0 {
            WorkQueuePump.shared.run(after: delay) { [self] in
                if !ended { inner?.startLoading() }
            }
        } else {
            loader.startLoading()
        }
    }

    private func forward(_ request: URLRequest, responseEdits: [HeaderEdit], client: URLProtocolClient) {
        let appURL = owner.request.url
        let sentURL = request.url
        let relay = ForwardRelay { [self] response, body, error in
            guard !ended else { return }
            if let error {
                deliver(.failure(error), after: 0, client: client)
                return
            }
            guard let http = response as? HTTPURLResponse, let url = http.url else {
                deliver(.failure(URLError(.badServerResponse)), after: 0, client: client)
                return
            }
            var headers = HTTPHeaders.fromFoundation(http.allHeaderFields)
            for edit in responseEdits { edit.apply(to: &headers) }
            // The app sees the URL it asked for, unless the server redirected it somewhere else.
            let seenURL = url == sentURL ? (appURL ?? url) : url
            let edited = HTTPURLResponse(url: seenURL, statusCode: http.statusCode, httpVersion: "HTTP/1.1", headerFields: headers.dictionary) ?? http
            deliver(.response(edited, body), after: 0, client: client)
        }
        self.relay = relay
        ForwardingSession.shared.start(request, for: relay, after: (throttle?.latency ?? 0) + uploadDelay)
    }

    /// Delivers a rule's answer (or a forwarded outcome) when the throttle says it would have
    /// arrived: latency, upload time, the rule's own delay and download time, counted from the start.
    private func deliver(_ answer: RuleAnswer, after ruleDelay: TimeInterval, client: URLProtocolClient) {
        var due = (throttle?.latency ?? 0) + uploadDelay + ruleDelay
        if case .response(_, let body) = answer, let rate = throttle?.downloadBytesPerSecond, rate > 0 {
            due += Double(body.count) / Double(rate)
        }
        let send: @Sendable () -> Void = { [self] in
            guard !ended else { return }
            ended = true
            switch answer {
            case .response(let response, let body):
                recorder?.didReceive(response: response)
                recorder?.didLoad(wholeBody: body)
                recorder?.finish(response: response)
            case .failure(let error):
                recorder?.finish(error: error)
            }
            answer.deliver(to: client, from: owner)
        }
        let wait = startedAt.addingTimeInterval(due).timeIntervalSinceNow
        if wait <= 0 {
            send()
        } else {
            WorkQueuePump.shared.run(after: wait, send)
        }
    }

    private func scheduleForcedTimeout(client: URLProtocolClient) {
        guard let limit = throttle?.forcedTimeout, limit > 0 else { return }
        WorkQueuePump.shared.run(after: limit) { [self] in
            guard !ended else { return }
            ended = true
            let error = RuleAnswer.urlError(NSURLErrorTimedOut, url: owner.request.url ?? URL(fileURLWithPath: "/"), message: "The request timed out (NetTap throttle rule).")
            recorder?.finish(error: error)
            relay?.cancel()
            // Only a download is observed under a forced timeout; its native loader cannot be
            // stopped from here, so it is cut off: nothing it does reaches the failed task.
            observer?.cutOff()
            client.urlProtocol(owner, didFailWithError: error)
        }
    }

    // MARK: LoaderObserver (observe mode)

    func loaderDidReceive(_ response: URLResponse) {
        declaredBytes = max(0, Int(response.expectedContentLength))
        recorder?.didReceive(response: response)
    }

    func loaderDidLoad(_ data: Data) {
        loadedBytes = data.count
        recorder?.didLoad(wholeBody: data)
    }

    func loaderDidFinish(_ loader: URLProtocol) -> Bool {
        guard !ended else { return false }
        let task = loader.task
        let finish: @Sendable () -> Void = { [self] in
            let reason = isDownload
                ? "URLSession wrote this download to a file that it hands to the app"
                : "URLSession delivered this body straight to the session delegate"
            // The size, where known: bytes counted by URLSession, else the declared Content-Length.
            let counted = max(task?.countOfBytesReceived ?? 0, Int64(declaredBytes))
            let received: Int64? = counted > 0 ? counted : nil
            recorder?.finish(response: task?.response, unavailableResponseBody: (received, reason), bytesSent: task?.countOfBytesSent)
        }
        // Delegate tasks get their bytes straight from corelibs; their end is held until the
        // declared length would have arrived.
        let declared = max(declaredBytes, Int(task?.response?.expectedContentLength ?? 0))
        let wait = pacedWait(bytes: max(Int(task?.countOfBytesReceived ?? 0), loadedBytes, declared))
        if wait <= 0 {
            ended = true
            finish()
            return true
        }
        let held = UncheckedBox(loader)
        WorkQueuePump.shared.run(after: wait) { [self] in
            guard !ended else { return }
            ended = true
            finish()
            observer?.passOnFinish(held.value)
        }
        return false
    }

    func loaderDidFail(_ error: Error, loader: URLProtocol) -> Bool {
        guard !ended else { return false }
        ended = true
        recorder?.finish(error: error, bytesSent: loader.task?.countOfBytesSent)
        return true
    }

    /// How long to hold the end of a throttled download: until `bytes` would have arrived.
    private func pacedWait(bytes: Int) -> TimeInterval {
        guard let rate = throttle?.downloadBytesPerSecond, rate > 0 else { return 0 }
        let due = startedAt.addingTimeInterval((throttle?.latency ?? 0) + uploadDelay + Double(bytes) / Double(rate))
        return due.timeIntervalSinceNow
    }

    // MARK: Helpers

    static func kind(of task: URLSessionTask) -> TaskKind {
        switch task {
        case is URLSessionUploadTask: return .upload
        case is URLSessionDownloadTask: return .download
        case is URLSessionDataTask: return .data
        default: return .other
        }
    }

    static func bodySource(of request: URLRequest, kind: TaskKind, taskBody: TaskBodyReader.Body?) -> RequestBodySource {
        let body = ExchangeRecorder.bodySource(of: request)
        if kind == .upload, case .none = body {
            let contentType = request.value(forHTTPHeaderField: "Content-Type")
            return taskBody?.captured(cap: NetTap.shared.settings.configuration.bodyCaptureLimit, contentType: contentType)
                ?? .unavailable(size: nil, reason: "an upload task's body is passed to URLSession apart from the request")
        }
        return body
    }

    static func skipped(_ why: String) -> ExchangeModification {
        ExchangeModification(rule: "NetTap", action: "skipped", detail: why)
    }
}
#endif
