import Foundation
import NetTapCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Collects what a capture path observes about one request while it runs, then submits it once.
///
/// Every method is O(1) apart from copying body chunks under the cap, so it is safe on URLSession's
/// own queues. `finish` is idempotent: the first call wins, later ones are ignored, which is what
/// cancellation races (cancel versus completion) need.
final class ExchangeRecorder: @unchecked Sendable {
    /// Time-ordered (version 7), so that a store indexes new exchanges at the end.
    let id: UUID
    let startedAt: Date
    private let tap: NetTap
    /// The configuration when the request started: capture keeps to it even if the app changes it.
    private let settings: CaptureSettings
    private let labels: [String: String]
    let bodyCap: Int
    /// Set for tasks created with a completion handler or an async call: they end there, not in
    /// the delegate's didComplete, because only the handler knows the whole body.
    let endsInCompletionHandler: Bool
    /// An upload task's whole body, for rules that send it again (NetTapSession's uploads).
    let upload: UploadBody?
    private let path: CapturePath
    private let kind: TaskKind

    private let lock = RecorderLock()
    let request: URLRequest
    private var requestBody: RequestBodySource
    private var response: URLResponse?
    private var responseStartedAt: Date?
    private var accumulator: BodyAccumulator?
    private var wholeBody: Data?
    private var downloadedBody: CapturedBody?
    private var redirects: [RedirectHop] = []
    private var metrics: TimingMetrics?
    private var modifications: [ExchangeModification] = []
    private var recordTargets: [URL] = []
    /// Set by the first `finish`; from then on the recorder only answers `capture()`.
    private var ending: Ending?

    /// How the exchange ended, as `finish` was told.
    private struct Ending {
        var at: Date
        var error: Error?
        var unavailableResponseBody: (size: Int64?, reason: String)?
        var bytesSent: Int64?
    }

    init(
        tap: NetTap, request: URLRequest, path: CapturePath, kind: TaskKind, requestBody: RequestBodySource,
        endsInCompletionHandler: Bool = false, upload: UploadBody? = nil, startedAt: Date = Date(),
        settings: CaptureSettings? = nil
    ) {
        self.tap = tap
        self.upload = upload
        self.endsInCompletionHandler = endsInCompletionHandler
        let settings = settings ?? tap.settings
        self.settings = settings
        self.startedAt = startedAt
        self.id = UUID.timeOrdered(at: startedAt)
        self.bodyCap = settings.configuration.bodyCaptureLimit
        self.labels = tap.labelsForNewExchange(under: settings)
        self.path = path
        self.kind = kind
        self.request = request
        self.requestBody = requestBody
        if tap.hub.hasStartListeners {
            tap.hub.submitStart(
                ExchangeStart(
                    id: id, sessionID: settings.configuration.sessionID, startedAt: startedAt,
                    method: request.httpMethod ?? "GET", url: request.url?.absoluteString ?? "", labels: labels,
                    capturePath: path),
                settings: settings)
        }
    }

    /// The request body as NetTap can see it for a request given to URLSession.
    static func bodySource(of request: URLRequest) -> RequestBodySource {
        if let body = request.httpBody { return .data(body) }
        if request.httpBodyStream != nil {
            return .unavailable(size: nil, reason: "the body was an input stream that URLSession read directly")
        }
        return .none
    }

    func didReceive(response: URLResponse) {
        whileRecording {
            self.response = response
            if responseStartedAt == nil { responseStartedAt = Date() }
        }
    }

    /// A chunk of the response body, as a delegate sees it.
    func didReceive(chunk: Data) {
        whileRecording {
            if accumulator == nil { accumulator = BodyAccumulator(cap: bodyCap) }
            accumulator?.append(chunk)
        }
    }

    /// The whole response body at once, as completion handlers see it.
    func didLoad(wholeBody data: Data) {
        whileRecording { wholeBody = data }
    }

    /// A response body already captured elsewhere (the start of a downloaded file).
    func setResponseBody(_ body: CapturedBody) {
        whileRecording {
            var accumulated = BodyAccumulator(cap: bodyCap)
            accumulated.append(body.data)
            accumulator = accumulated
            downloadedBody = body
        }
    }

    /// The request body, once known: a streamed upload's body arrives after the task starts.
    func setRequestBody(_ body: RequestBodySource) {
        whileRecording { requestBody = body }
    }

    func didRedirect(_ hop: RedirectHop) {
        whileRecording { redirects.append(hop) }
    }

    func setMetrics(_ value: TimingMetrics) {
        whileRecording { metrics = value }
    }

    func addModification(_ modification: ExchangeModification) {
        whileRecording { modifications.append(modification) }
    }

    /// HAR files the finished exchange is recorded into (`record` rules, replay's `recordMissing`).
    func addRecordTargets(_ targets: [URL]) {
        guard !targets.isEmpty else { return }
        whileRecording { recordTargets.append(contentsOf: targets) }
    }

    /// Runs `change` under the lock unless the exchange has ended: what arrives after `finish`
    /// (a callback racing a cancellation) must not alter what the hub reads.
    private func whileRecording(_ change: () -> Void) {
        lock.withLock {
            guard ending == nil else { return }
            change()
        }
    }

    /// Ends the exchange and hands the recorder to the hub. Only the first call counts; callbacks
    /// that arrive later change nothing.
    ///
    /// The request path only notes how the exchange ended. The hub turns what was recorded into a
    /// `RawCapture` (`capture()`) when it builds the exchange: copying it out here cost the app's
    /// thread 2-3 µs per request in the capture benchmark, and handing over the recorder is one
    /// reference (BENCHMARKS.md, capture).
    /// - Parameters:
    ///   - unavailableResponseBody: why the body could not be seen, when no bytes were observed.
    func finish(
        response finalResponse: URLResponse? = nil, error: Error? = nil,
        unavailableResponseBody: (size: Int64?, reason: String)? = nil, bytesSent: Int64? = nil
    ) {
        let endedAt = Date()
        let isFirst = lock.withLock { () -> Bool in
            guard ending == nil else { return false }
            if let finalResponse { response = finalResponse }
            ending = Ending(at: endedAt, error: error, unavailableResponseBody: unavailableResponseBody, bytesSent: bytesSent)
            return true
        }
        if isFirst {
            tap.hub.submit(self)
        }
    }

    /// Whether `addRecordTargets` named any HAR file: the hub skips building exchanges nobody takes.
    var hasRecordTargets: Bool {
        lock.withLock { !recordTargets.isEmpty }
    }

    /// What was recorded, for the hub once `finish` has handed the recorder over (nil before that).
    func capture() -> RawCapture? {
        lock.withLock { () -> RawCapture? in
            guard let ending else { return nil }
            let body: ResponseBodySource
            if let wholeBody {
                body = .data(wholeBody)
            } else if let downloadedBody {
                body = .accumulated(downloadedBody)
            } else if let accumulator {
                body = .accumulated(accumulator.body(contentType: nil))
            } else if response != nil, let unavailable = ending.unavailableResponseBody {
                body = .unavailable(size: unavailable.size, reason: unavailable.reason)
            } else if response != nil {
                body = .data(Data())
            } else {
                body = .none
            }
            var timing = metrics ?? TimingMetrics()
            if metrics == nil {
                // No platform metrics (Linux never delivers them): record what NetTap saw itself.
                timing.fetchStart = startedAt
                timing.responseStart = responseStartedAt
                timing.responseEnd = ending.at
                timing.bytesSent = ending.bytesSent
                if case .data(let data) = body { timing.bytesReceived = Int64(data.count) }
                if case .accumulated(let captured) = body { timing.bytesReceived = captured.size }
            }
            // Where the path could not see individual redirects, the end points still show one happened.
            var hops = redirects
            if hops.isEmpty, let from = request.url, let to = response?.url, from != to {
                hops.append(RedirectHop(url: from.absoluteString, statusCode: nil, location: to.absoluteString))
            }
            var finalRequestBody = requestBody
            if case .unavailable(nil, let reason) = requestBody, let bytesSent = ending.bytesSent, bytesSent > 0 {
                finalRequestBody = .unavailable(size: bytesSent, reason: reason)
            }
            return RawCapture(
                id: id, settings: settings, startedAt: startedAt, endedAt: ending.at, labels: labels,
                path: path, kind: kind, bodyCap: bodyCap, request: request,
                requestBody: finalRequestBody, response: response, responseBody: body,
                error: ending.error.map { CaptureError($0) }, redirects: hops, metrics: timing,
                modifications: modifications, recordTargets: recordTargets)
        }
    }
}
