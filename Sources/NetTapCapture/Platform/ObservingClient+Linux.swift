#if !canImport(Darwin)
import Foundation
import FoundationNetworking
import NetTapCore

/// What an `ObservingClient` reports, on URLSession's work queue.
protocol LoaderObserver: AnyObject {
    func loaderDidReceive(_ response: URLResponse)
    func loaderDidLoad(_ data: Data)
    /// Returns true to pass the end on to URLSession now; false when the observer will pass it on
    /// itself later (throttling), by calling `passOn` on the client.
    func loaderDidFinish(_ loader: URLProtocol) -> Bool
    func loaderDidFail(_ error: Error, loader: URLProtocol) -> Bool
}

/// Sits between a native loader and URLSession's client: passes every call on, unchanged, on the
/// same thread, and tells its observer what it saw. It never calls the client on its own
/// initiative; a held end is passed on only through `passOnFinish` / `passOnFailure`.
final class ObservingClient: NSObject, URLProtocolClient, @unchecked Sendable {
    private let realClient: URLProtocolClient
    private weak var observer: LoaderObserver?
    /// Set when NetTap has ended the task itself (a forced timeout): nothing more is passed on.
    /// Read and written on URLSession's work queue only.
    private var isCutOff = false

    init(realClient: URLProtocolClient, observer: LoaderObserver) {
        self.realClient = realClient
        self.observer = observer
    }

    /// Stops passing the loader's calls on: the task has already been ended.
    func cutOff() {
        isCutOff = true
    }

    func passOnFinish(_ loader: URLProtocol) {
        realClient.urlProtocolDidFinishLoading(loader)
    }

    func passOnFailure(_ error: Error, loader: URLProtocol) {
        realClient.urlProtocol(loader, didFailWithError: error)
    }

    func urlProtocol(_ protocol: URLProtocol, wasRedirectedTo request: URLRequest, redirectResponse: URLResponse) {
        guard !isCutOff else { return }
        realClient.urlProtocol(`protocol`, wasRedirectedTo: request, redirectResponse: redirectResponse)
    }

    func urlProtocol(_ protocol: URLProtocol, cachedResponseIsValid cachedResponse: CachedURLResponse) {
        guard !isCutOff else { return }
        realClient.urlProtocol(`protocol`, cachedResponseIsValid: cachedResponse)
    }

    func urlProtocol(_ protocol: URLProtocol, didReceive response: URLResponse, cacheStoragePolicy policy: URLCache.StoragePolicy) {
        guard !isCutOff else { return }
        observer?.loaderDidReceive(response)
        realClient.urlProtocol(`protocol`, didReceive: response, cacheStoragePolicy: policy)
    }

    func urlProtocol(_ protocol: URLProtocol, didLoad data: Data) {
        guard !isCutOff else { return }
        // corelibs hands completion-handler and async callers the data of the last didLoad only,
        // and its native loader calls it once with the whole body: what we keep is what they get.
        observer?.loaderDidLoad(data)
        realClient.urlProtocol(`protocol`, didLoad: data)
    }

    func urlProtocolDidFinishLoading(_ protocol: URLProtocol) {
        guard !isCutOff else { return }
        if observer?.loaderDidFinish(`protocol`) ?? true {
            realClient.urlProtocolDidFinishLoading(`protocol`)
        }
    }

    func urlProtocol(_ protocol: URLProtocol, didFailWithError error: Error) {
        guard !isCutOff else { return }
        if observer?.loaderDidFail(error, loader: `protocol`) ?? true {
            realClient.urlProtocol(`protocol`, didFailWithError: error)
        }
    }

    func urlProtocol(_ protocol: URLProtocol, didReceive challenge: URLAuthenticationChallenge) {
        guard !isCutOff else { return }
        realClient.urlProtocol(`protocol`, didReceive: challenge)
    }

    func urlProtocol(_ protocol: URLProtocol, didCancel challenge: URLAuthenticationChallenge) {
        guard !isCutOff else { return }
        realClient.urlProtocol(`protocol`, didCancel: challenge)
    }
}

/// URLSession's own loaders, found through public API: the classes of a default configuration.
enum NativeLoaders {
    static let classes: [URLProtocol.Type] = (URLSessionConfiguration.default.protocolClasses ?? [])
        .compactMap { $0 as? URLProtocol.Type }
        .filter { $0 != NetTapURLProtocol.self && $0 != NetTapRulesProtocol.self }

    /// Classes that apps listed after NetTap in configurations passed to `NetTap.enable(on:)`.
    static let downstream = Protected<[URLProtocol.Type]>([])

    static func loaderClass(for request: URLRequest) -> URLProtocol.Type? {
        if let custom = downstream.current.first(where: { $0.canInit(with: request) }) { return custom }
        return classes.first { $0.canInit(with: request) }
    }

    /// A native loader for `task`, reporting through `client`.
    static func loader(for task: URLSessionTask, request: URLRequest, cachedResponse: CachedURLResponse?, client: URLProtocolClient) -> URLProtocol? {
        loaderClass(for: request)?.init(task: task, cachedResponse: cachedResponse, client: client)
    }
}
#endif
