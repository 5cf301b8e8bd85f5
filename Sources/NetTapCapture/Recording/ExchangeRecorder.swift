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

    private let lock = NSLock()
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
    private var isFinished = false

    init(
        tap: NetTap, request: URLRequest, path: CapturePath, kind: TaskKind, requestBody: RequestBodySource,
        endsInCompletionHandler: Bool = false, upload: UploadBody? = nil, startedAt: Date = Date()
    ) {
        self.tap = tap
        self.upload = upload
        self.endsInCompletionHandler = endsInCompletionHandler
        let settings = tap.settings
        self.settings = settings
        self.startedAt = startedAt
        self.id = UUID.timeOrdered(at: startedAt)
        self.bodyCap = settings.configuration.bodyCaptureLimit
        self.labels = tap.labelsForNewExchange()
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
        lock.withLock {
            self.response = response
            if responseStartedAt == nil { responseStartedAt = Date() }
        }
    }

    /// A chunk of the response body, as a delegate sees it.
    func didReceive(chunk: Data) {
        lock.withLock {
            if accumulator == nil { accumulator = BodyAccumulator(cap: bodyCap) }
            accumulator?.append(chunk)
        }
    }

    /// The whole response body at once, as completion handlers see it.
    func didLoad(wholeBody data: Data) {
        lock.withLock { wholeBody = data }
    }

    /// A response body already captured elsewhere (the start of a downloaded file).
    func setResponseBody(_ body: CapturedBody) {
        lock.withLock {
            var accumulated = BodyAccumulator(cap: bodyCap)
            accumulated.append(body.data)
            accumulator = accumulated
            downloadedBody = body
        }
    }

    /// The request body, once known: a streamed upload's body arrives after the task starts.
    func setRequestBody(_ body: RequestBodySource) {
        lock.withLock { requestBody = body }
    }

    func didRedirect(_ hop: RedirectHop) {
        lock.withLock { redirects.append(hop) }
    }

    func setMetrics(_ value: TimingMetrics) {
        lock.withLock { metrics = value }
    }

    func addModification(_ modification: ExchangeModification) {
        lock.withLock { modifications.append(modification) }
    }

    /// HAR files the finished exchange is recorded into (`record` rules, replay's `recordMissing`).
    func addRecordTargets(_ targets: [URL]) {
        guard !targets.isEmpty else { return }
        lock.withLock { recordTargets.append(contentsOf: targets) }
    }

    /// Ends the exchange and hands it to the hub. Only the first call counts.
    /// - Parameters:
    ///   - unavailableResponseBody: why the body could not be seen, when no bytes were observed.
    func finish(
        response finalResponse: URLResponse? = nil, error: Error? = nil,
        unavailableResponseBody: (size: Int64?, reason: String)? = nil, bytesSent: Int64? = nil
    ) {
        let endedAt = Date()
        let capture: RawCapture? = lock.withLock {
            guard !isFinished else { return nil }
            isFinished = true
            if let finalResponse { response = finalResponse }
            let body: ResponseBodySource
            if let wholeBody {
                body = .data(wholeBody)
            } else if let downloadedBody {
                body = .accumulated(downloadedBody)
            } else if let accumulator {
                body = .accumulated(accumulator.body(contentType: nil))
            } else if response != nil, let unavailable = unavailableResponseBody {
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
                timing.responseEnd = endedAt
                timing.bytesSent = bytesSent
                if case .data(let data) = body { timing.bytesReceived = Int64(data.count) }
                if case .accumulated(let captured) = body { timing.bytesReceived = captured.size }
            }
            // Where the path could not see individual redirects, the end points still show one happened.
            if redirects.isEmpty, let from = request.url, let to = response?.url, from != to {
                redirects.append(RedirectHop(url: from.absoluteString, statusCode: nil, location: to.absoluteString))
            }
            var finalRequestBody = requestBody
            if case .unavailable(nil, let reason) = requestBody, let bytesSent, bytesSent > 0 {
                finalRequestBody = .unavailable(size: bytesSent, reason: reason)
            }
            return RawCapture(
                id: id, settings: settings, startedAt: startedAt, endedAt: endedAt, labels: labels,
                path: path, kind: kind, bodyCap: bodyCap, request: request,
                requestBody: finalRequestBody, response: response, responseBody: body,
                error: error.map { CaptureError($0) }, redirects: redirects, metrics: timing,
                modifications: modifications, recordTargets: recordTargets)
        }
        if let capture {
            tap.hub.submit(capture)
        }
    }
}
