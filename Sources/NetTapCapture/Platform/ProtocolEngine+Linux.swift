#if !canImport(Darwin)
import Foundation
import FoundationNetworking
import NetTapCore

/// The Linux engine behind `NetTapURLProtocol`: it wraps the native HTTP loader of the request's own
/// task and observes it through an interposed `URLProtocolClient`.
///
/// Why not forward through a second session, as URLProtocol loggers do on Apple platforms:
/// corelibs (swift-corelibs-foundation 6.3) makes every forwarding design fragile here
/// (docs/capture-on-linux.md has the source references):
/// - `startLoading()` runs on the one serial queue under every session; creating a task there traps.
/// - `URLProtocolClient` calls from any other thread race the session's task registry.
/// - `urlProtocol(_:wasRedirectedTo:redirectResponse:)` is a `fatalError`, so redirects cannot be reported.
/// - Download tasks need an internal property (`temporaryFileURL`) that only native loaders can set.
/// Wrapping the native loader avoids all four: the loader is the one URLSession would have used,
/// it calls our client on URLSession's own queue, and we pass each call on, on that same queue,
/// synchronously. Redirects, auth, cookies, caching, timeouts and downloads stay exactly native.
///
/// What it cannot see (recorded as an unavailable body with the reason): bodies that corelibs
/// hands straight to a session delegate (delegate-based data tasks, download files), and request
/// bodies given as a stream or as an upload task's separate data. `NetTapSession` sees those.
final class ProtocolEngine {
    private unowned let owner: NetTapURLProtocol
    private var inner: URLProtocol?
    private var recorder: ExchangeRecorder?

    init(owner: NetTapURLProtocol) {
        self.owner = owner
    }

    // MARK: Finding the native loader

    /// The loaders URLSession would use if NetTap were not there: URLSession's own (read from a
    /// default configuration, so nothing internal is named), after any classes the app configured
    /// alongside NetTap.
    private static let nativeClasses: [URLProtocol.Type] = (URLSessionConfiguration.default.protocolClasses ?? [])
        .compactMap { $0 as? URLProtocol.Type }
        .filter { $0 != NetTapURLProtocol.self }

    /// Classes that apps listed after NetTap in configurations passed to `NetTap.enable(on:)`.
    static let downstreamClasses = Protected<[URLProtocol.Type]>([])

    static func loaderClass(for request: URLRequest) -> URLProtocol.Type? {
        let downstream = downstreamClasses.current
        if let custom = downstream.first(where: { $0.canInit(with: request) }) { return custom }
        return nativeClasses.first { $0.canInit(with: request) }
    }

    static func canLoad(_ request: URLRequest) -> Bool {
        loaderClass(for: request) != nil
    }

    /// Puts NetTap first in the process-wide registry. corelibs consults registered classes in
    /// registration order and `URLSession.shared` copies the list once, when first touched
    /// (linux-urlsession-facts.md, fact 1), so URLSession's own loaders are re-registered after NetTap.
    static func registerGlobally() -> Bool {
        for native in nativeClasses { URLProtocol.unregisterClass(native) }
        _ = URLProtocol.registerClass(NetTapURLProtocol.self)
        for native in nativeClasses { _ = URLProtocol.registerClass(native) }
        return URLSession.shared.configuration.protocolClasses?.first == NetTapURLProtocol.self
    }

    static func noteConfiguredClasses(after classes: [AnyClass]) {
        let custom = classes.compactMap { $0 as? URLProtocol.Type }
            .filter { candidate in !nativeClasses.contains { $0 == candidate } && candidate != NetTapURLProtocol.self }
        guard !custom.isEmpty else { return }
        downstreamClasses.withLock { list in
            for candidate in custom where !list.contains(where: { $0 == candidate }) {
                list.append(candidate)
            }
        }
    }

    // MARK: Loading

    func start() {
        if inner == nil { makeInnerLoader() }
        inner?.startLoading()
    }

    func stop() {
        inner?.stopLoading()
        // task.cancel() reports the cancellation to the client directly, past our observer;
        // stopLoading is where we learn of it.
        if let task = owner.task, task.state == .canceling {
            recorder?.finish(error: task.error ?? URLError(.cancelled), bytesSent: task.countOfBytesSent)
        }
    }

    private func makeInnerLoader() {
        guard let task = owner.task, let realClient = owner.client else {
            // Without a task URLSession did not create us; there is nothing to load for.
            owner.client?.urlProtocol(owner, didFailWithError: URLError(.unknown))
            return
        }
        let request = task.originalRequest ?? owner.request
        guard let loaderClass = Self.loaderClass(for: request) else {
            realClient.urlProtocol(owner, didFailWithError: URLError(.unsupportedURL))
            return
        }
        let kind: TaskKind
        var body = ExchangeRecorder.bodySource(of: request)
        switch task {
        case is URLSessionUploadTask:
            kind = .upload
            if case .none = body {
                body = .unavailable(size: nil, reason: "an upload task's body is passed to URLSession apart from the request")
            }
        case is URLSessionDownloadTask:
            kind = .download
        case is URLSessionDataTask:
            kind = .data
        default:
            kind = .other
        }
        let recorder = ExchangeRecorder(tap: .shared, request: request, path: .urlProtocol, kind: kind, requestBody: body)
        self.recorder = recorder
        let observer = ObservingClient(recorder: recorder, realClient: realClient, isDownload: kind == .download)
        inner = loaderClass.init(task: task, cachedResponse: owner.cachedResponse, client: observer)
    }
}

/// Passes every call of the native loader on to URLSession's client, unchanged and on the same
/// thread, and notes what it learns. It never calls the real client on its own initiative.
private final class ObservingClient: NSObject, URLProtocolClient, @unchecked Sendable {
    private let recorder: ExchangeRecorder
    private let realClient: URLProtocolClient
    private let isDownload: Bool

    init(recorder: ExchangeRecorder, realClient: URLProtocolClient, isDownload: Bool) {
        self.recorder = recorder
        self.realClient = realClient
        self.isDownload = isDownload
    }

    func urlProtocol(_ protocol: URLProtocol, wasRedirectedTo request: URLRequest, redirectResponse: URLResponse) {
        realClient.urlProtocol(`protocol`, wasRedirectedTo: request, redirectResponse: redirectResponse)
    }

    func urlProtocol(_ protocol: URLProtocol, cachedResponseIsValid cachedResponse: CachedURLResponse) {
        realClient.urlProtocol(`protocol`, cachedResponseIsValid: cachedResponse)
    }

    func urlProtocol(_ protocol: URLProtocol, didReceive response: URLResponse, cacheStoragePolicy policy: URLCache.StoragePolicy) {
        recorder.didReceive(response: response)
        realClient.urlProtocol(`protocol`, didReceive: response, cacheStoragePolicy: policy)
    }

    func urlProtocol(_ protocol: URLProtocol, didLoad data: Data) {
        // corelibs hands completion-handler and async callers the data of the last didLoad only,
        // and its native loader calls it once with the whole body: what we keep is what they get.
        recorder.didLoad(wholeBody: data)
        realClient.urlProtocol(`protocol`, didLoad: data)
    }

    func urlProtocolDidFinishLoading(_ protocol: URLProtocol) {
        if let task = `protocol`.task {
            let reason = isDownload
                ? "URLSession wrote this download to a file that it hands to the app"
                : "URLSession delivered this body straight to the session delegate"
            let expected = task.countOfBytesReceived > 0 ? task.countOfBytesReceived : nil
            recorder.finish(
                response: task.response, unavailableResponseBody: (expected, reason), bytesSent: task.countOfBytesSent)
        } else {
            recorder.finish()
        }
        realClient.urlProtocolDidFinishLoading(`protocol`)
    }

    func urlProtocol(_ protocol: URLProtocol, didFailWithError error: Error) {
        recorder.finish(error: error, bytesSent: `protocol`.task?.countOfBytesSent)
        realClient.urlProtocol(`protocol`, didFailWithError: error)
    }

    func urlProtocol(_ protocol: URLProtocol, didReceive challenge: URLAuthenticationChallenge) {
        realClient.urlProtocol(`protocol`, didReceive: challenge)
    }

    func urlProtocol(_ protocol: URLProtocol, didCancel challenge: URLAuthenticationChallenge) {
        realClient.urlProtocol(`protocol`, didCancel: challenge)
    }
}
#endif
