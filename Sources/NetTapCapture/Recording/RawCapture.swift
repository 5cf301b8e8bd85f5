import Foundation
import NetTapCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where the bytes of a request body can be read from, once the request is over.
enum RequestBodySource: @unchecked Sendable {
    case none
    case data(Data)
    /// An upload from a file, before it is read.
    case file(URL)
    /// Bytes already read (the start of an upload file).
    case captured(CapturedBody)
    /// Bytes teed from a body stream while URLSession reads it; read when the exchange is built.
    case teed(BodyStreamTee)
    /// The platform consumed the body where NetTap cannot see it.
    case unavailable(size: Int64?, reason: String)
}

/// Where the bytes of a response body can be read from.
enum ResponseBodySource: @unchecked Sendable {
    case none
    /// The whole body as the platform handed it over (capped when the exchange is built).
    case data(Data)
    /// Chunks kept under the cap as they arrived.
    case accumulated(CapturedBody)
    case unavailable(size: Int64?, reason: String)
}

/// Everything one capture path observed about one request, in Foundation's own types.
///
/// Read out of a finished `ExchangeRecorder` on the hub's queue, with no conversion work, then
/// turned into an `Exchange` by `makeExchange()`. `@unchecked Sendable`: the Foundation objects it
/// holds are not mutated after capture.
struct RawCapture: @unchecked Sendable {
    var id: UUID
    /// The configuration the request started under: its session id and its redactor.
    var settings: CaptureSettings
    var startedAt: Date
    var endedAt: Date
    var labels: [String: String]
    var path: CapturePath
    var kind: TaskKind
    var bodyCap: Int
    var request: URLRequest
    var requestBody: RequestBodySource
    var response: URLResponse?
    var responseBody: ResponseBodySource
    var error: CaptureError?
    var redirects: [RedirectHop]
    var metrics: TimingMetrics?
    var modifications: [ExchangeModification] = []
    /// HAR files this exchange is recorded into, after redaction.
    var recordTargets: [URL] = []

    func makeExchange() -> Exchange {
        let capturedRequest = CapturedRequest(
            method: request.httpMethod ?? "GET",
            url: request.url?.absoluteString ?? "",
            headers: HTTPHeaders(request.allHTTPHeaderFields ?? [:]),
            body: makeRequestBody())
        var capturedResponse: CapturedResponse?
        if let http = response as? HTTPURLResponse {
            let headers = HTTPHeaders.fromFoundation(http.allHeaderFields)
            capturedResponse = CapturedResponse(
                statusCode: http.statusCode,
                headers: headers,
                body: makeResponseBody(contentType: headers["Content-Type"]),
                httpVersion: metrics?.networkProtocol.map(Self.httpVersion(forProtocol:)),
                url: http.url?.absoluteString)
        }
        // Built straight into the redactor, which takes it over and edits it in place.
        return settings.redactor.redact(Exchange(
            id: id,
            sessionID: settings.configuration.sessionID,
            startedAt: startedAt,
            duration: max(0, endedAt.timeIntervalSince(startedAt)),
            request: capturedRequest,
            response: consume capturedResponse,
            error: error,
            redirects: redirects,
            metrics: metrics,
            labels: labels,
            capturePath: path,
            taskKind: kind,
            modifications: modifications))
    }

    private func makeRequestBody() -> CapturedBody? {
        let contentType = request.value(forHTTPHeaderField: "Content-Type")
        switch requestBody {
        case .none:
            return nil
        case .data(let data):
            return data.isEmpty ? nil : CapturedBody.capturing(data, cap: bodyCap, contentType: contentType)
        case .file(let url):
            return Self.readPrefix(of: url, cap: bodyCap, contentType: contentType)
        case .captured(let body):
            return body
        case .teed(let tee):
            var body = tee.capturedBody
            body.contentType = contentType
            return body
        case .unavailable(let size, let reason):
            return .unavailable(size: size, contentType: contentType, reason: reason)
        }
    }

    private func makeResponseBody(contentType: String?) -> CapturedBody? {
        switch responseBody {
        case .none:
            return nil
        case .data(let data):
            return CapturedBody.capturing(data, cap: bodyCap, contentType: contentType)
        case .accumulated(var body):
            body.contentType = contentType
            return body
        case .unavailable(let size, let reason):
            return .unavailable(size: size, contentType: contentType, reason: reason)
        }
    }

    /// Reads at most `cap` bytes of a file and its size; an unreadable file becomes an unavailable body.
    static func readPrefix(of url: URL, cap: Int, contentType: String?) -> CapturedBody {
        guard let handle = try? FileHandle(forReadingFrom: url) else {
            return .unavailable(size: nil, contentType: contentType, reason: "the file \(url.path) could not be read")
        }
        defer { try? handle.close() }
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
        let prefix = (try? handle.read(upToCount: cap)) ?? Data()
        let total = size ?? Int64(prefix.count)
        return CapturedBody(data: prefix, size: total, contentType: contentType, isTruncated: total > Int64(prefix.count))
    }

    static func httpVersion(forProtocol name: String) -> String {
        switch name.lowercased() {
        case "http/1.1": return "HTTP/1.1"
        case "http/1.0": return "HTTP/1.0"
        case "h2": return "HTTP/2"
        case "h3", "http/3": return "HTTP/3"
        default: return name
        }
    }
}

extension HTTPHeaders {
    /// Header fields from `HTTPURLResponse.allHeaderFields`, sorted by name (the dictionary has no order).
    ///
    /// One pass over the dictionary as it comes: casting it to `[String: String]` first would build
    /// and hash a second dictionary, only to turn it into an array. This runs for every capture.
    static func fromFoundation(_ dictionary: [AnyHashable: Any]) -> HTTPHeaders {
        var fields: [HTTPHeaderField] = []
        fields.reserveCapacity(dictionary.count)
        for (key, value) in dictionary {
            guard let name = key.base as? String else { continue }
            fields.append(HTTPHeaderField(name: name, value: value as? String ?? "\(value)"))
        }
        return HTTPHeaders(sortingByName: fields)
    }
}
