#if !canImport(Darwin)
import Foundation
import FoundationNetworking
@testable import NetTapCapture
import NetTapCore
import NetTapTestSupport
import Testing

@_silgen_name("dispatch_queue_get_label")
private func dispatchQueueLabel(_ queue: OpaquePointer?) -> UnsafePointer<CChar>

/// The label of the dispatch queue running the caller.
private func currentQueueLabel() -> String {
    String(cString: dispatchQueueLabel(nil))
}

/// Canaries for what NetTap's Linux engine relies on in swift-corelibs-foundation
/// (docs/capture-on-linux.md). A toolchain that changes one of these fails here first, with a
/// message naming the assumption.
@Suite struct CorelibsAssumptionTests {
    /// URLSession's own loaders, as `URLSessionConfiguration.default` lists them, load http and https.
    @Test func aDefaultConfigurationNamesTheNativeLoaders() throws {
        let http = try #require(NativeLoaders.loaderClass(for: URLRequest(url: URL(string: "http://127.0.0.1/")!)),
                                "no native loader for http in URLSessionConfiguration.default.protocolClasses")
        #expect(NativeLoaders.loaderClass(for: URLRequest(url: URL(string: "https://127.0.0.1/")!)) == http)
        #expect(http != NetTapURLProtocol.self)
    }

    /// A native loader made for a task reports to the client it was given, on URLSession's work queue
    /// (or the multi-handle queue that targets it), and hands a completion-handler task its whole body
    /// in one didLoad.
    @Test func theNativeLoaderCallsItsClientOnTheWorkQueueWithTheWholeBody() async throws {
        let server = try ScenarioServer()
        defer { server.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [ProbeProtocol.self] + (configuration.protocolClasses ?? [])
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        ProbeProtocol.log.withLock { $0 = [] }
        let (data, _) = try await session.data(from: server.url("/bytes/300000?seed=2"))
        #expect(data == ScenarioBytes.bytes(count: 300_000, seed: 2))
        let log = ProbeProtocol.log.current
        let loads = log.filter { $0.hasPrefix("didLoad") }
        #expect(loads == ["didLoad 300000"], "the body must arrive in one didLoad: \(loads)")
        #expect(log.contains("didFinishLoading"))
        let labels = Set(ProbeProtocol.labels.current)
        #expect(!labels.isEmpty)
        #expect(labels.isSubset(of: ["MultiHandle.isolation", "org.swift.URLSessionTask.WorkQueue"]),
                "client calls came from \(labels); the engine may only call URLSession's client on its work queue")
    }

    /// `startLoading()` runs on the task's work queue, which is what WorkQueuePump relies on.
    @Test func thePumpRunsBlocksOnTheWorkQueue() async throws {
        let label = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            WorkQueuePump.shared.run(after: 0) { continuation.resume(returning: currentQueueLabel()) }
        }
        #expect(label == "org.swift.URLSessionTask.WorkQueue")
    }

    /// URLProtocol properties do not survive becoming a URLRequest (docs/linux-foundation-notes.md, 1):
    /// if this starts to pass, NetTapSession can mark requests on Linux as it does on Apple platforms.
    @Test func requestPropertiesAreDropped() {
        let mutable = NSMutableURLRequest(url: URL(string: "http://127.0.0.1/")!)
        URLProtocol.setProperty(true, forKey: "probe", in: mutable)
        #expect(URLProtocol.property(forKey: "probe", in: mutable as URLRequest) == nil)
    }

    /// corelibs keeps an upload task's body, and a request's body stream, in the task's internal
    /// `knownBody` (data, file or stream), where `TaskBodyReader` finds it for the URLProtocol path.
    @Test func aTaskKeepsItsBodyWhereTheReaderFindsIt() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [BodyProbeProtocol.self]
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: URL(string: "http://127.0.0.1:9/upload")!)
        request.httpMethod = "POST"
        let directory = try TemporaryDirectory()
        let file = directory.file("upload.bin")
        try Data("from a file".utf8).write(to: file)

        _ = try? await session.upload(for: request, from: Data("from memory".utf8))
        _ = try? await session.upload(for: request, fromFile: file)
        var streamed = request
        streamed.httpBodyStream = InputStream(data: Data("streamed".utf8))
        _ = try? await session.data(for: streamed)

        let seen = BodyProbeProtocol.seen.current
        #expect(seen == ["data from memory", "file \(file.path)", "stream"],
                "TaskBodyReader no longer reads URLSessionTask.knownBody; upload bodies on the URLProtocol path would go unseen")
    }
}

/// Reports what `TaskBodyReader` finds in each task it is asked to load, then fails the task.
private final class BodyProbeProtocol: URLProtocol {
    static let seen = Protected<[String]>([])

    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        let entry: String
        switch task.flatMap(TaskBodyReader.body(of:)) {
        case .data(let data): entry = "data " + String(decoding: Data(data), as: UTF8.self)
        case .file(let url): entry = "file \(url.path)"
        case .stream: entry = "stream"
        case nil: entry = "nothing"
        }
        Self.seen.withLock { $0.append(entry) }
        client?.urlProtocol(self, didFailWithError: URLError(.cancelled))
    }

    override func stopLoading() {}
}

/// Wraps the native loader exactly as the engine does, recording what it sees and where.
private final class ProbeProtocol: URLProtocol {
    static let log = Protected<[String]>([])
    static let labels = Protected<[String]>([])
    private var inner: URLProtocol?

    override class func canInit(with request: URLRequest) -> Bool { request.url?.scheme == "http" }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        guard let task, let client else { return }
        let probe = ProbeClient(real: client)
        inner = NativeLoaders.loader(for: task, request: request, cachedResponse: nil, client: probe)
        inner?.startLoading()
    }

    override func stopLoading() { inner?.stopLoading() }
}

private final class ProbeClient: NSObject, URLProtocolClient, @unchecked Sendable {
    let real: URLProtocolClient
    init(real: URLProtocolClient) { self.real = real }

    private func note(_ entry: String) {
        ProbeProtocol.log.withLock { $0.append(entry) }
        ProbeProtocol.labels.withLock { $0.append(currentQueueLabel()) }
    }

    func urlProtocol(_ p: URLProtocol, wasRedirectedTo r: URLRequest, redirectResponse: URLResponse) { real.urlProtocol(p, wasRedirectedTo: r, redirectResponse: redirectResponse) }
    func urlProtocol(_ p: URLProtocol, cachedResponseIsValid c: CachedURLResponse) { real.urlProtocol(p, cachedResponseIsValid: c) }
    func urlProtocol(_ p: URLProtocol, didReceive r: URLResponse, cacheStoragePolicy s: URLCache.StoragePolicy) {
        note("didReceive")
        real.urlProtocol(p, didReceive: r, cacheStoragePolicy: s)
    }
    func urlProtocol(_ p: URLProtocol, didLoad d: Data) {
        note("didLoad \(d.count)")
        real.urlProtocol(p, didLoad: d)
    }
    func urlProtocolDidFinishLoading(_ p: URLProtocol) {
        note("didFinishLoading")
        real.urlProtocolDidFinishLoading(p)
    }
    func urlProtocol(_ p: URLProtocol, didFailWithError e: Error) {
        note("didFail")
        real.urlProtocol(p, didFailWithError: e)
    }
    func urlProtocol(_ p: URLProtocol, didReceive c: URLAuthenticationChallenge) { real.urlProtocol(p, didReceive: c) }
    func urlProtocol(_ p: URLProtocol, didCancel c: URLAuthenticationChallenge) { real.urlProtocol(p, didCancel: c) }
}
#endif
