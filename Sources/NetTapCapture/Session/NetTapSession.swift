import Foundation
import NetTapCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Capture path 2: a URLSession that records every exchange it carries, through URLSession's own
/// callbacks, without re-issuing anything.
///
/// It offers the calls an app makes on `URLSession` and hands back URLSession's own tasks, data and
/// errors. The app's delegate (session-wide, or per task for the async calls) receives every
/// callback it would receive from a plain session.
///
/// ```swift
/// let session = NetTapSession(configuration: .default)
/// let (data, response) = try await session.data(from: URL(string: "https://api.example.com/items")!)
///
/// session.dataTask(with: request) { data, response, error in ... }.resume()
/// ```
public final class NetTapSession: @unchecked Sendable {
    /// The URLSession underneath, for calls NetTapSession does not wrap (those go uncaptured).
    public let session: URLSession
    public let tap: NetTap
    private let proxy: SessionDelegateProxy

    /// - Parameters:
    ///   - delegate: the app's session delegate; NetTap forwards every callback to it.
    ///   - delegateQueue: as for `URLSession(configuration:delegate:delegateQueue:)`.
    ///   - tap: the NetTap instance that receives the captures.
    public init(
        configuration: URLSessionConfiguration = .default, delegate: URLSessionDelegate? = nil,
        delegateQueue: OperationQueue? = nil, tap: NetTap = .shared
    ) {
        self.tap = tap
        self.proxy = SessionDelegateProxy(appDelegate: delegate)
        // Rules apply to this session's requests through the same engine as on the URLProtocol path.
        let own = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        own.protocolClasses = [NetTapRulesProtocol.self] + (own.protocolClasses ?? []).filter { $0 != NetTapRulesProtocol.self }
        self.session = URLSession(configuration: own, delegate: proxy, delegateQueue: delegateQueue)
    }

    // MARK: async
    //
    // These run URLSession's own async calls, as a plain session would, so that the app's await
    // resumes exactly as it would without NetTap (corelibs completes them on its own queue, with no
    // hop through the delegate queue). One exception, on Linux: while rules are in force, a call
    // without a task delegate of the app's runs as a completion-handler task, because the rules
    // engine must find the exchange of the very task it is loading (`tracksAsyncTasks`).

    public func data(for request: URLRequest, delegate: URLSessionTaskDelegate? = nil) async throws -> (Data, URLResponse) {
        guard let (marked, recorder) = begin(request, kind: .data) else {
            return try await session.data(for: request, delegate: delegate)
        }
        if delegate == nil, tracksAsyncTasks {
            return try await run(recorder: recorder) { handler in tracked(session.dataTask(with: marked, completionHandler: handler), recorder) }
        }
        expectTask(recorder)
        return try await recording(recorder) { try await session.data(for: marked, delegate: delegate) }
    }

    public func data(from url: URL, delegate: URLSessionTaskDelegate? = nil) async throws -> (Data, URLResponse) {
        try await data(for: URLRequest(url: url), delegate: delegate)
    }

    public func upload(
        for request: URLRequest, from bodyData: Data, delegate: URLSessionTaskDelegate? = nil
    ) async throws -> (Data, URLResponse) {
        guard let (marked, recorder) = begin(request, kind: .upload, body: .data(bodyData), upload: .data(bodyData)) else {
            return try await session.upload(for: request, from: bodyData, delegate: delegate)
        }
        if delegate == nil, tracksAsyncTasks {
            return try await run(recorder: recorder) { handler in
                tracked(session.uploadTask(with: marked, from: bodyData, completionHandler: handler), recorder)
            }
        }
        expectTask(recorder)
        return try await recording(recorder) { try await session.upload(for: marked, from: bodyData, delegate: delegate) }
    }

    public func upload(
        for request: URLRequest, fromFile fileURL: URL, delegate: URLSessionTaskDelegate? = nil
    ) async throws -> (Data, URLResponse) {
        guard let (marked, recorder) = begin(request, kind: .upload, body: .file(fileURL), upload: .file(fileURL)) else {
            return try await session.upload(for: request, fromFile: fileURL, delegate: delegate)
        }
        if delegate == nil, tracksAsyncTasks {
            return try await run(recorder: recorder) { handler in
                tracked(session.uploadTask(with: marked, fromFile: fileURL, completionHandler: handler), recorder)
            }
        }
        expectTask(recorder)
        return try await recording(recorder) { try await session.upload(for: marked, fromFile: fileURL, delegate: delegate) }
    }

    public func download(for request: URLRequest, delegate: URLSessionTaskDelegate? = nil) async throws -> (URL, URLResponse) {
        guard let (marked, recorder) = begin(request, kind: .download) else {
            return try await session.download(for: request, delegate: delegate)
        }
        expectTask(recorder)
        do {
            let (location, response) = try await session.download(for: marked, delegate: delegate)
            recordDownload(at: location, response: response, into: recorder)
            end(recorder, response: response, error: nil)
            return (location, response)
        } catch {
            end(recorder, response: nil, error: error)
            throw error
        }
    }

    public func download(from url: URL, delegate: URLSessionTaskDelegate? = nil) async throws -> (URL, URLResponse) {
        try await download(for: URLRequest(url: url), delegate: delegate)
    }

    /// Whether async calls must run as tasks NetTap creates: on Linux while rules are in force.
    /// (On Apple platforms the request itself names its exchange; see `SessionDelegateProxy`.)
    private var tracksAsyncTasks: Bool {
        !SessionDelegateProxy.marksRequests && RulesRuntime.shared.isActive
    }

    /// Lets callbacks for a task URLSession creates inside its own async call find the exchange.
    func expectTask(_ recorder: ExchangeRecorder) {
        if !SessionDelegateProxy.marksRequests { proxy.expectTask(for: recorder) }
    }

    /// Runs one of URLSession's own async calls and records its outcome.
    private func recording(
        _ recorder: ExchangeRecorder, _ call: () async throws -> (Data, URLResponse)
    ) async throws -> (Data, URLResponse) {
        do {
            let (data, response) = try await call()
            recorder.didLoad(wholeBody: data)
            end(recorder, response: response, error: nil)
            return (data, response)
        } catch {
            end(recorder, response: nil, error: error)
            throw error
        }
    }

    /// Runs a completion-handler task as an async call, with cancellation, the way URLSession's
    /// own async methods do.
    private func run(
        recorder: ExchangeRecorder,
        _ make: (@escaping @Sendable (Data?, URLResponse?, Error?) -> Void) -> URLSessionTask
    ) async throws -> (Data, URLResponse) {
        let cancellation = CancellationLink()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, URLResponse), Error>) in
                let task = make { [proxy] data, response, error in
                    if let data { recorder.didLoad(wholeBody: data) }
                    proxy.end(recorder, response: response, error: error)
                    if let error {
                        continuation.resume(throwing: error)
                    } else if let response {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                if cancellation.activate(task) { task.resume() } else { task.cancel() }
            }
        } onCancel: {
            cancellation.cancel()
        }
    }

    // MARK: Completion handlers

    public func dataTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, Error?) -> Void
    ) -> URLSessionDataTask {
        guard let (marked, recorder) = begin(request, kind: .data) else {
            return session.dataTask(with: request, completionHandler: completionHandler)
        }
        return tracked(session.dataTask(with: marked) { [proxy] data, response, error in
            if let data { recorder.didLoad(wholeBody: data) }
            proxy.end(recorder, response: response, error: error)
            completionHandler(data, response, error)
        }, recorder)
    }

    public func dataTask(
        with url: URL, completionHandler: @escaping @Sendable (Data?, URLResponse?, Error?) -> Void
    ) -> URLSessionDataTask {
        dataTask(with: URLRequest(url: url), completionHandler: completionHandler)
    }

    public func uploadTask(
        with request: URLRequest, from bodyData: Data?,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, Error?) -> Void
    ) -> URLSessionUploadTask {
        guard let (marked, recorder) = begin(
            request, kind: .upload, body: bodyData.map { RequestBodySource.data($0) }, upload: bodyData.map { UploadBody.data($0) })
        else {
            return session.uploadTask(with: request, from: bodyData, completionHandler: completionHandler)
        }
        return tracked(session.uploadTask(with: marked, from: bodyData) { [proxy] data, response, error in
            if let data { recorder.didLoad(wholeBody: data) }
            proxy.end(recorder, response: response, error: error)
            completionHandler(data, response, error)
        }, recorder)
    }

    public func uploadTask(
        with request: URLRequest, fromFile fileURL: URL,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, Error?) -> Void
    ) -> URLSessionUploadTask {
        guard let (marked, recorder) = begin(request, kind: .upload, body: .file(fileURL), upload: .file(fileURL)) else {
            return session.uploadTask(with: request, fromFile: fileURL, completionHandler: completionHandler)
        }
        return tracked(session.uploadTask(with: marked, fromFile: fileURL) { [proxy] data, response, error in
            if let data { recorder.didLoad(wholeBody: data) }
            proxy.end(recorder, response: response, error: error)
            completionHandler(data, response, error)
        }, recorder)
    }

    public func downloadTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (URL?, URLResponse?, Error?) -> Void
    ) -> URLSessionDownloadTask {
        guard let (marked, recorder) = begin(request, kind: .download) else {
            return session.downloadTask(with: request, completionHandler: completionHandler)
        }
        return tracked(session.downloadTask(with: marked) { [weak self, proxy] location, response, error in
            if let location, let response { self?.recordDownload(at: location, response: response, into: recorder) }
            proxy.end(recorder, response: response, error: error)
            completionHandler(location, response, error)
        }, recorder)
    }

    public func downloadTask(
        with url: URL, completionHandler: @escaping @Sendable (URL?, URLResponse?, Error?) -> Void
    ) -> URLSessionDownloadTask {
        downloadTask(with: URLRequest(url: url), completionHandler: completionHandler)
    }

    // MARK: Delegate-based tasks (events go to the session delegate given at init)

    public func dataTask(with request: URLRequest) -> URLSessionDataTask {
        guard let (marked, recorder) = begin(request, kind: .data, endsInHandler: false) else { return session.dataTask(with: request) }
        return tracked(session.dataTask(with: marked), recorder)
    }

    public func dataTask(with url: URL) -> URLSessionDataTask {
        dataTask(with: URLRequest(url: url))
    }

    public func uploadTask(with request: URLRequest, from bodyData: Data) -> URLSessionUploadTask {
        guard let (marked, recorder) = begin(request, kind: .upload, body: .data(bodyData), upload: .data(bodyData), endsInHandler: false) else {
            return session.uploadTask(with: request, from: bodyData)
        }
        return tracked(session.uploadTask(with: marked, from: bodyData), recorder)
    }

    public func uploadTask(with request: URLRequest, fromFile fileURL: URL) -> URLSessionUploadTask {
        guard let (marked, recorder) = begin(request, kind: .upload, body: .file(fileURL), upload: .file(fileURL), endsInHandler: false) else {
            return session.uploadTask(with: request, fromFile: fileURL)
        }
        return tracked(session.uploadTask(with: marked, fromFile: fileURL), recorder)
    }

    /// An upload whose body the delegate supplies in `urlSession(_:task:needNewBodyStream:)`.
    public func uploadTask(withStreamedRequest request: URLRequest) -> URLSessionUploadTask {
        guard let (marked, recorder) = begin(request, kind: .upload, endsInHandler: false) else {
            return session.uploadTask(withStreamedRequest: request)
        }
        return tracked(session.uploadTask(withStreamedRequest: marked), recorder)
    }

    public func downloadTask(with request: URLRequest) -> URLSessionDownloadTask {
        guard let (marked, recorder) = begin(request, kind: .download, endsInHandler: false) else { return session.downloadTask(with: request) }
        return tracked(session.downloadTask(with: marked), recorder)
    }

    public func downloadTask(with url: URL) -> URLSessionDownloadTask {
        downloadTask(with: URLRequest(url: url))
    }

    // MARK: Lifecycle

    public func finishTasksAndInvalidate() {
        session.finishTasksAndInvalidate()
    }

    public func invalidateAndCancel() {
        session.invalidateAndCancel()
    }

    // MARK: Capture bookkeeping

    /// Starts recording `request` unless capture is off for it; returns the request to send, marked
    /// so that the URLProtocol path skips it and delegate callbacks can find their recorder.
    func begin(
        _ request: URLRequest, kind: TaskKind, body: RequestBodySource? = nil, upload: UploadBody? = nil,
        endsInHandler: Bool = true
    ) -> (URLRequest, ExchangeRecorder)? {
        guard let settings = tap.captureSettings(for: request) else { return nil }
        var outgoing = request
        var bodySource = body ?? ExchangeRecorder.bodySource(of: request)
        let cap = settings.configuration.bodyCaptureLimit
        if case .file(let url) = bodySource {
            // Read the start now: apps often delete an uploaded file as soon as the upload ends.
            bodySource = .captured(RawCapture.readPrefix(of: url, cap: cap, contentType: request.value(forHTTPHeaderField: "Content-Type")))
        }
        if body == nil, let stream = request.httpBodyStream, let teed = StreamTeeing.tee(stream, cap: cap) {
            outgoing.httpBodyStream = teed.stream
            bodySource = .teed(teed.tee)
        }
        let recorder = ExchangeRecorder(
            tap: tap, request: request, path: .session, kind: kind, requestBody: bodySource,
            endsInCompletionHandler: endsInHandler, upload: upload, settings: settings)
        return (proxy.track(outgoing, recorder: recorder), recorder)
    }

    private func tracked<SessionTask: URLSessionTask>(_ task: SessionTask, _ recorder: ExchangeRecorder) -> SessionTask {
        proxy.associate(task, with: recorder)
        return task
    }

    func end(_ recorder: ExchangeRecorder, response: URLResponse?, error: Error?) {
        proxy.end(recorder, response: response, error: error)
    }

    /// Keeps the first bytes of a downloaded file before the app moves it.
    private func recordDownload(at location: URL, response: URLResponse, into recorder: ExchangeRecorder) {
        let contentType = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type")
        recorder.setResponseBody(RawCapture.readPrefix(of: location, cap: tap.settings.configuration.bodyCaptureLimit, contentType: contentType))
    }
}
