import Foundation
import NetTapCore

/// Exchanges that use every part of the model, for export tests.
///
/// Instants are built from whole microseconds since 1970 (`at(_:)`), the resolution HAR export
/// keeps; `decode(encode(x)) == x` is then an exact comparison.
enum SampleExchanges {
    /// 2026-05-28T20:26:40.250Z.
    static let baseMicros: Int64 = 1_780_000_000_250_000

    static func at(_ offsetMicros: Int64) -> Date {
        Date(timeIntervalSince1970: Double(baseMicros + offsetMicros) / 1_000_000)
    }

    static func uuid(_ n: Int) -> UUID {
        UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", n)) ?? UUID()
    }

    /// All bytes 0...255: not UTF-8, so it must travel as base64 (HAR) or escapes (cURL).
    static let binary = Data((0...255).map { UInt8($0) })

    /// GET with full Apple-style metrics (blocked 1 ms, dns 12.5 ms, connect 30 ms of which
    /// ssl 18.25 ms, send 0.125 ms, wait 40 ms, receive 2.375 ms), cookies both ways, a gzip
    /// response, labels.
    static var fullMetrics: Exchange {
        let metrics = TimingMetrics(
            fetchStart: at(0), domainLookupStart: at(1_000), domainLookupEnd: at(13_500),
            connectStart: at(13_500), connectEnd: at(43_500), secureConnectionStart: at(25_250),
            secureConnectionEnd: at(43_500), requestStart: at(43_500), requestEnd: at(43_625),
            responseStart: at(83_625), responseEnd: at(86_000), remoteAddress: "203.0.113.7",
            remotePort: 443, isReusedConnection: false, networkProtocol: "h2", bytesSent: 312, bytesReceived: 4_096)
        return Exchange(
            id: uuid(1), sessionID: "session-A", startedAt: at(0), duration: 0.086,
            request: CapturedRequest(
                method: "GET", url: "https://api.example.test/v1/items?page=2&q=caf%C3%A9%20au%20lait&flag",
                headers: HTTPHeaders([
                    HTTPHeaderField(name: "Accept", value: "application/json"),
                    HTTPHeaderField(name: "Cookie", value: "sid=abc123; theme=dark"),
                    HTTPHeaderField(name: "Accept-Encoding", value: "gzip, br"),
                ])),
            response: CapturedResponse(
                statusCode: 200,
                headers: HTTPHeaders([
                    HTTPHeaderField(name: "Content-Type", value: "application/json; charset=utf-8"),
                    HTTPHeaderField(name: "Content-Encoding", value: "gzip"),
                    HTTPHeaderField(
                        name: "Set-Cookie",
                        value: "sid=xyz789; Path=/; Domain=example.test; Expires=Wed, 21 Oct 2026 07:28:00 GMT; HttpOnly; Secure; SameSite=Lax"),
                    HTTPHeaderField(name: "Set-Cookie", value: "seen=1"),
                ]),
                body: CapturedBody(data: Data(#"{"items":[1,2,3],"name":"café"}"#.utf8), contentType: "application/json; charset=utf-8"),
                httpVersion: "h2", url: "https://api.example.test/v1/items?page=2&q=caf%C3%A9%20au%20lait&flag"),
            metrics: metrics, labels: ["screen": "Catalog", "scenario": "browse", "ünïcode": "✓"],
            capturePath: .session)
    }

    /// POST of binary bytes answered by a binary PNG; no metrics: all of the duration is `wait`.
    static var binaryUpload: Exchange {
        Exchange(
            id: uuid(2), sessionID: "session-A", startedAt: at(100_000), duration: 0.25,
            request: CapturedRequest(
                method: "POST", url: "http://127.0.0.1:8080/upload",
                headers: ["Content-Type": "application/octet-stream", "Content-Length": "256"],
                body: CapturedBody(data: binary, contentType: "application/octet-stream")),
            response: CapturedResponse(
                statusCode: 201, headers: ["Content-Type": "image/png"],
                body: CapturedBody(data: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0xFF]), contentType: "image/png"),
                httpVersion: "HTTP/1.1"),
            capturePath: .urlProtocol, taskKind: .upload)
    }

    /// A response cut at the capture cap and a redacted request body.
    static var truncated: Exchange {
        Exchange(
            id: uuid(3), sessionID: "session-A", startedAt: at(400_000), duration: 1.5,
            request: CapturedRequest(
                method: "PUT", url: "https://api.example.test/v1/profile",
                headers: ["Content-Type": "application/json", "Authorization": "Bearer <redacted>"],
                body: CapturedBody(
                    data: Data(#"{"password":"<redacted>"}"#.utf8), size: 24, contentType: "application/json",
                    isRedacted: true)),
            response: CapturedResponse(
                statusCode: 200, headers: ["Content-Type": "text/plain"],
                body: CapturedBody(
                    data: Data(String(repeating: "x", count: 1024).utf8), size: 1_000_000, contentType: "text/plain",
                    isTruncated: true),
                httpVersion: "HTTP/1.1"),
            capturePath: .session)
    }

    /// A request that timed out: no response, an error, no metrics.
    static var failed: Exchange {
        Exchange(
            id: uuid(4), sessionID: "session-B", startedAt: at(2_000_000), duration: 30,
            request: CapturedRequest(method: "GET", url: "https://slow.example.test/report"),
            error: CaptureError(
                category: .timeout, domain: "NSURLErrorDomain", code: -1001, message: "The request timed out."),
            labels: ["screen": "Reports"], capturePath: .urlProtocol)
    }

    /// Redirected twice, changed by rules, answered by another URL; Linux-style metrics (fetch
    /// start, response start and end only) covering 80 of the 100 ms.
    static var redirected: Exchange {
        Exchange(
            id: uuid(5), sessionID: "session-B", startedAt: at(3_000_000), duration: 0.1,
            request: CapturedRequest(method: "GET", url: "http://old.example.test/a"),
            response: CapturedResponse(
                statusCode: 200, headers: ["Content-Type": "text/html"],
                body: CapturedBody(data: Data("<p>hi</p>".utf8), contentType: "text/html"),
                url: "https://new.example.test/c"),
            redirects: [
                RedirectHop(url: "http://old.example.test/a", statusCode: 301, location: "https://old.example.test/a"),
                RedirectHop(url: "https://old.example.test/a", statusCode: 302, location: "https://new.example.test/c"),
            ],
            metrics: TimingMetrics(fetchStart: at(3_010_000), responseStart: at(3_070_000), responseEnd: at(3_090_000)),
            capturePath: .session,
            modifications: [
                ExchangeModification(rule: "staging", action: "rewrite", detail: "host prod -> staging"),
                ExchangeModification(rule: "slow-3g", action: "throttle", detail: "400 kbit/s"),
            ])
    }

    /// A download whose bytes the platform did not expose, and a 204 without a body.
    static var unavailable: Exchange {
        Exchange(
            id: uuid(6), sessionID: "session-B", startedAt: at(4_000_000), duration: 2,
            request: CapturedRequest(
                method: "POST", url: "https://files.example.test/export",
                body: CapturedBody(data: Data(), contentType: "application/json")),
            response: CapturedResponse(
                statusCode: 200, headers: ["Content-Type": "application/zip"],
                body: .unavailable(size: 5_000_000, contentType: "application/zip", reason: "download task: bytes go to a file")),
            capturePath: .urlProtocol, taskKind: .download)
    }

    /// Still in flight when exported: no duration, no response.
    static var inFlight: Exchange {
        Exchange(
            id: uuid(7), sessionID: "session-B", startedAt: at(5_000_000),
            request: CapturedRequest(method: "DELETE", url: "https://api.example.test/v1/items/7"),
            capturePath: .session)
    }

    /// 204 with no body at all, from a reused connection, with an error that came after the head.
    static var noContent: Exchange {
        Exchange(
            id: uuid(8), sessionID: "session-B", startedAt: at(6_000_000), duration: 0.004,
            request: CapturedRequest(method: "OPTIONS", url: "https://api.example.test/v1/items"),
            response: CapturedResponse(statusCode: 204, headers: ["Allow": "GET, POST"], httpVersion: "HTTP/1.1"),
            error: CaptureError(category: .cancelled, domain: "NSURLErrorDomain", code: -999, message: "cancelled"),
            metrics: TimingMetrics(
                fetchStart: at(6_000_000), requestStart: at(6_000_500), requestEnd: at(6_000_600),
                responseStart: at(6_003_000), responseEnd: at(6_003_900), isReusedConnection: true),
            capturePath: .session)
    }

    static var all: [Exchange] {
        names.compactMap { try? named($0) }
    }

    /// Names for parameterized tests (an exchange would print as a page of text in test output).
    static let names = ["fullMetrics", "binaryUpload", "truncated", "failed", "redirected", "unavailable", "inFlight", "noContent"]

    static func named(_ name: String) throws -> Exchange {
        switch name {
        case "fullMetrics": return fullMetrics
        case "binaryUpload": return binaryUpload
        case "truncated": return truncated
        case "failed": return failed
        case "redirected": return redirected
        case "unavailable": return unavailable
        case "inFlight": return inFlight
        case "noContent": return noContent
        default: throw UnknownSample(name: name)
        }
    }

    struct UnknownSample: Error {
        var name: String
    }
}
