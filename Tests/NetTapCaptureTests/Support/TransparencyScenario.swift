import Foundation
import NetTapTestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request shape, one API, and the delegate's choices: run once per `CaptureVariant` and compared.
struct TransparencyScenario: Sendable, CustomStringConvertible {
    enum API: String, Sendable {
        case async, completion, delegate
        /// `data(for:delegate:)` with a task delegate of the app's (the scenario's delegate).
        case asyncTaskDelegate
        /// `data(for:)` whose Swift task the app cancels once the server has the request.
        case asyncCancelledByApp
        case uploadAsync, uploadCompletion, uploadFile, uploadDelegate
        /// `uploadTask(withStreamedRequest:)`: the delegate supplies the body stream.
        case uploadStreamedDelegate
        case downloadAsync, downloadDelegate
    }

    enum Body: Sendable {
        case none
        case data(Data)
        case stream(Data)

        var bytes: Data? {
            switch self {
            case .none: return nil
            case .data(let data), .stream(let data): return data
            }
        }
    }

    enum Server: Sendable { case http, https, refused }

    var name: String
    var path: String
    var method = "GET"
    var headers: [String: String] = [:]
    var body: Body = .none
    var api: API = .async
    var server: Server = .http
    /// A request timeout, set with the property setter: corelibs honours a request's timeout over
    /// the configuration's only when it was set that way (docs/linux-foundation-notes.md).
    var timeout: TimeInterval?
    var hasSessionDelegate = false
    var delegateOptions = RecordingDelegate.Options()
    /// A request made first on the same client (cookies, caches).
    var before: String?
    /// How many body bytes arrive before a cancellation lands depends on timing; such scenarios
    /// compare bodies as prefixes of one stream instead of byte for byte.
    var bodyLengthDependsOnTiming = false
    /// What plain URLSession must show, so that a scenario cannot pass by all paths agreeing on
    /// something else (a broken route, a timeout that never fires).
    var expectedStatus: Int?
    var expectedErrorCode: Int?

    var description: String { name }

    /// What the app saw.
    struct Outcome: Equatable, CustomStringConvertible {
        var status: Int?
        var headers: [String: String] = [:]
        var body = Data()
        var errorDomain: String?
        var errorCode: Int?
        var finalURL: String?
        var redirectsSeenByDelegate: [Int] = []

        /// The same outcome with every occurrence of `run` replaced by a fixed marker.
        func removingRunID(_ run: String) -> Outcome {
            guard !run.isEmpty else { return self }
            var copy = self
            copy.finalURL = finalURL?.replacingOccurrences(of: run, with: "RUN")
            copy.headers = headers.mapValues { $0.replacingOccurrences(of: run, with: "RUN") }
            let needle = Data(run.utf8)
            var result = Data()
            var rest = body[...]
            while let range = rest.range(of: needle) {
                result.append(rest[rest.startIndex..<range.lowerBound])
                result.append(contentsOf: Array("RUN".utf8))
                rest = rest[range.upperBound...]
            }
            result.append(rest)
            copy.body = result
            return copy
        }

        var description: String {
            "status \(status.map(String.init) ?? "none"), \(body.count) bytes, error \(errorDomain ?? "none") \(errorCode.map(String.init) ?? ""), final \(finalURL ?? "none"), redirects \(redirectsSeenByDelegate), headers \(headers.keys.sorted())"
        }
    }

    /// Runs the scenario through `variant`; `run` is put in the URL so captures can be found.
    func execute(variant: CaptureVariant, run: String, http: ScenarioServer, tls: TLSTestServer?) async throws -> Outcome {
        let base: String
        switch server {
        case .http: base = http.baseURL.absoluteString
        case .https: base = tls?.baseURL.absoluteString ?? "https://127.0.0.1:1"
        case .refused: base = "http://127.0.0.1:1"
        }
        let separator = path.contains("?") ? "&" : "?"
        guard let url = URL(string: base + path + separator + "nettap-run=" + run) else {
            throw TestFailure("bad URL for \(name)")
        }
        var request = URLRequest(url: url)
        if let timeout { request.timeoutInterval = timeout }
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        switch body {
        case .none: break
        case .data(let data): request.httpBody = data
        case .stream(let data):
            // No Content-Length: corelibs sends a stream body chunked, and with both headers set a
            // strict server rejects the request (docs/linux-foundation-notes.md).
            request.httpBodyStream = InputStream(data: data)
        }

        let delegate = RecordingDelegate(options: delegateOptions)
        let usesDelegate = hasSessionDelegate || [.delegate, .uploadDelegate, .uploadStreamedDelegate, .downloadDelegate].contains(api)
        let client = variant.makeClient(delegate: usesDelegate ? delegate : nil)
        defer { client.finish() }

        if let before, let beforeURL = URL(string: base + before) {
            _ = try? await client.data(for: URLRequest(url: beforeURL))
        }

        var outcome = Outcome()
        func record(data: Data?, response: URLResponse?, error: Error?) {
            outcome.body = data ?? Data()
            if let http = response as? HTTPURLResponse {
                outcome.status = http.statusCode
                outcome.finalURL = http.url?.absoluteString
                for (key, value) in http.allHeaderFields {
                    guard let name = key as? String, name.lowercased() != "date" else { continue }
                    outcome.headers[name.lowercased()] = "\(value)"
                }
            }
            if let error {
                let nsError = error as NSError
                outcome.errorDomain = nsError.domain
                outcome.errorCode = nsError.code
            }
        }

        switch api {
        case .async:
            do {
                let (data, response) = try await client.data(for: request)
                record(data: data, response: response, error: nil)
            } catch {
                record(data: nil, response: nil, error: error)
            }
        case .asyncTaskDelegate:
            do {
                let (data, response) = try await client.data(for: request, delegate: delegate)
                record(data: data, response: response, error: nil)
            } catch {
                record(data: nil, response: nil, error: error)
            }
        case .asyncCancelledByApp:
            let arrived = http.receivedRequests.count
            let call = Task { try await client.data(for: request) }
            // Cancel only once the request is on the server, so that every path cancels a live transfer.
            guard await http.waitForRequests(count: arrived + 1, timeout: 30) else {
                call.cancel()
                throw TestFailure("\(name): the request never reached the server")
            }
            call.cancel()
            do {
                let (data, response) = try await call.value
                record(data: data, response: response, error: nil)
            } catch {
                record(data: nil, response: nil, error: error)
            }
        case .uploadAsync:
            do {
                let (data, response) = try await client.upload(for: request, from: body.bytes ?? Data())
                record(data: data, response: response, error: nil)
            } catch {
                record(data: nil, response: nil, error: error)
            }
        case .downloadAsync:
            do {
                let (data, response) = try await client.download(for: request)
                record(data: data, response: response, error: nil)
            } catch {
                record(data: nil, response: nil, error: error)
            }
        case .completion, .uploadCompletion, .uploadFile:
            let file = api == .uploadFile ? try Self.writeTemporaryFile(body.bytes ?? Data()) : nil
            defer { file.map { try? FileManager.default.removeItem(at: $0) } }
            let (data, response, error) = await withCheckedContinuation { (continuation: CheckedContinuation<(Data?, URLResponse?, Error?), Never>) in
                let handler: @Sendable (Data?, URLResponse?, Error?) -> Void = { continuation.resume(returning: ($0, $1, $2)) }
                switch api {
                case .uploadCompletion: client.uploadTask(with: request, from: body.bytes ?? Data(), completion: handler).resume()
                case .uploadFile: client.uploadTask(with: request, fromFile: file ?? URL(fileURLWithPath: "/dev/null"), completion: handler).resume()
                default: client.dataTask(with: request, completion: handler).resume()
                }
            }
            record(data: data, response: response, error: error)
        case .delegate, .uploadDelegate, .uploadStreamedDelegate, .downloadDelegate:
            let task: URLSessionTask
            switch api {
            case .uploadDelegate: task = client.uploadTask(with: request, from: body.bytes ?? Data())
            case .uploadStreamedDelegate:
                var streamed = request
                streamed.httpBody = nil
                streamed.httpBodyStream = nil
                task = client.uploadTask(withStreamedRequest: streamed)
            case .downloadDelegate: task = client.downloadTask(with: request)
            default: task = client.dataTask(with: request)
            }
            task.resume()
            let result = await delegate.result()
            record(data: result.data, response: result.response, error: result.error)
        }
        outcome.redirectsSeenByDelegate = delegate.redirectStatuses
        return outcome
    }

    static func writeTemporaryFile(_ data: Data) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("nettap-upload-\(UUID().uuidString)")
        try data.write(to: url)
        return url
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
