import Foundation
import NetTapCapture

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The three ways a transparency scenario runs: without NetTap, and through each capture path.
enum CaptureVariant: String, CaseIterable, Sendable, CustomStringConvertible {
    case plain
    case urlProtocol = "protocol"
    case session

    var description: String { rawValue }

    func makeClient(delegate: URLSessionDelegate?, configure: (URLSessionConfiguration) -> Void = { _ in }) -> ScenarioClient {
        let configuration = URLSessionConfiguration.ephemeral
        configure(configuration)
        switch self {
        case .plain:
            return .plain(URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil))
        case .urlProtocol:
            NetTap.enable(on: configuration)
            return .plain(URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil))
        case .session:
            return .tap(NetTapSession(configuration: configuration, delegate: delegate))
        }
    }
}

/// One API surface over URLSession and NetTapSession, so that a scenario is written once.
enum ScenarioClient: Sendable {
    case plain(URLSession)
    case tap(NetTapSession)

    func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        switch self {
        case .plain(let session): return try await session.data(for: request)
        case .tap(let session): return try await session.data(for: request)
        }
    }

    func data(for request: URLRequest, delegate: URLSessionTaskDelegate) async throws -> (Data, URLResponse) {
        switch self {
        case .plain(let session): return try await session.data(for: request, delegate: delegate)
        case .tap(let session): return try await session.data(for: request, delegate: delegate)
        }
    }

    func upload(for request: URLRequest, from data: Data) async throws -> (Data, URLResponse) {
        switch self {
        case .plain(let session): return try await session.upload(for: request, from: data)
        case .tap(let session): return try await session.upload(for: request, from: data)
        }
    }

    func download(for request: URLRequest) async throws -> (Data, URLResponse) {
        let (location, response): (URL, URLResponse)
        switch self {
        case .plain(let session): (location, response) = try await session.download(for: request)
        case .tap(let session): (location, response) = try await session.download(for: request)
        }
        defer { try? FileManager.default.removeItem(at: location) }
        return (try Data(contentsOf: location), response)
    }

    func dataTask(with request: URLRequest, completion: @escaping @Sendable (Data?, URLResponse?, Error?) -> Void) -> URLSessionDataTask {
        switch self {
        case .plain(let session): return session.dataTask(with: request, completionHandler: completion)
        case .tap(let session): return session.dataTask(with: request, completionHandler: completion)
        }
    }

    func uploadTask(with request: URLRequest, from data: Data, completion: @escaping @Sendable (Data?, URLResponse?, Error?) -> Void) -> URLSessionUploadTask {
        switch self {
        case .plain(let session): return session.uploadTask(with: request, from: data, completionHandler: completion)
        case .tap(let session): return session.uploadTask(with: request, from: data, completionHandler: completion)
        }
    }

    func uploadTask(with request: URLRequest, fromFile file: URL, completion: @escaping @Sendable (Data?, URLResponse?, Error?) -> Void) -> URLSessionUploadTask {
        switch self {
        case .plain(let session): return session.uploadTask(with: request, fromFile: file, completionHandler: completion)
        case .tap(let session): return session.uploadTask(with: request, fromFile: file, completionHandler: completion)
        }
    }

    /// A delegate-based data task (the delegate given at creation receives the events).
    func dataTask(with request: URLRequest) -> URLSessionDataTask {
        switch self {
        case .plain(let session): return session.dataTask(with: request)
        case .tap(let session): return session.dataTask(with: request)
        }
    }

    func uploadTask(with request: URLRequest, from data: Data) -> URLSessionUploadTask {
        switch self {
        case .plain(let session): return session.uploadTask(with: request, from: data)
        case .tap(let session): return session.uploadTask(with: request, from: data)
        }
    }

    /// An upload whose body the delegate supplies in `urlSession(_:task:needNewBodyStream:)`.
    func uploadTask(withStreamedRequest request: URLRequest) -> URLSessionUploadTask {
        switch self {
        case .plain(let session): return session.uploadTask(withStreamedRequest: request)
        case .tap(let session): return session.uploadTask(withStreamedRequest: request)
        }
    }

    func downloadTask(with request: URLRequest) -> URLSessionDownloadTask {
        switch self {
        case .plain(let session): return session.downloadTask(with: request)
        case .tap(let session): return session.downloadTask(with: request)
        }
    }

    func finish() {
        switch self {
        case .plain(let session): session.finishTasksAndInvalidate()
        case .tap(let session): session.finishTasksAndInvalidate()
        }
    }
}
