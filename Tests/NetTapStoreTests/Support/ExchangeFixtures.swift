import Foundation
import NetTapCore

/// Exchanges for tests, from plain to every-field-set.
enum ExchangeFixtures {
    static let base = Date(timeIntervalSince1970: 1_764_000_000.123_456_7)

    /// A small successful exchange; `index` makes URL, time and body distinct.
    static func simple(
        _ index: Int, host: String = "api.example.com", method: String = "GET", status: Int? = 200,
        startedAt: Date? = nil, labels: [String: String] = [:], session: String = "session-1",
        path: String? = nil, duration: TimeInterval? = nil, error: CaptureError? = nil,
        capturePath: CapturePath = .urlProtocol, responseBody: Data? = nil
    ) -> Exchange {
        let url = "https://\(host)\(path ?? "/items/\(index)")?page=\(index % 3)"
        let body = responseBody ?? Data("{\"index\":\(index)}".utf8)
        return Exchange(
            sessionID: session,
            startedAt: startedAt ?? base.addingTimeInterval(Double(index)),
            duration: duration ?? 0.01 * Double(index % 17 + 1),
            request: CapturedRequest(method: method, url: url, headers: ["Accept": "application/json"]),
            response: status.map {
                CapturedResponse(
                    statusCode: $0, headers: ["Content-Type": "application/json"],
                    body: CapturedBody(data: body, contentType: "application/json"), httpVersion: "HTTP/1.1")
            },
            error: error, labels: labels, capturePath: capturePath)
    }

    /// An exchange that uses every field: binary and text bodies, a truncated body, redirects,
    /// metrics, labels, modifications, repeated headers and awkward characters.
    static func rich(startedAt: Date = Date()) -> Exchange {
        var binary = Data((0 ..< 3000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        binary[0] = 0xff
        let text = String(repeating: "{\"name\":\"Zoë\",\"quote\":\"\\\"hi\\\"\",\"tab\":\"\\t\"}\n", count: 80)
        let metrics = TimingMetrics(
            fetchStart: startedAt, domainLookupStart: startedAt.addingTimeInterval(0.000_123_456_789),
            domainLookupEnd: startedAt.addingTimeInterval(0.002), connectStart: startedAt.addingTimeInterval(0.002),
            connectEnd: startedAt.addingTimeInterval(0.01), secureConnectionStart: startedAt.addingTimeInterval(0.003),
            secureConnectionEnd: startedAt.addingTimeInterval(0.009), requestStart: startedAt.addingTimeInterval(0.011),
            requestEnd: startedAt.addingTimeInterval(0.012), responseStart: startedAt.addingTimeInterval(0.1),
            responseEnd: startedAt.addingTimeInterval(0.2), remoteAddress: "127.0.0.1", remotePort: 8443,
            isReusedConnection: false, networkProtocol: "h2", bytesSent: 4096, bytesReceived: 1 << 40)
        var requestHeaders = HTTPHeaders()
        requestHeaders.add(name: "Content-Type", value: "application/octet-stream")
        requestHeaders.add(name: "X-Quote", value: "say \"hi\"\\ and\nnewline \u{1}")
        requestHeaders.add(name: "Cookie", value: "a=1")
        requestHeaders.add(name: "cookie", value: "b=2")
        var responseHeaders = HTTPHeaders()
        responseHeaders.add(name: "Set-Cookie", value: "x=1")
        responseHeaders.add(name: "Set-Cookie", value: "y=2")
        responseHeaders.add(name: "Content-Type", value: "application/json; charset=utf-8")
        return Exchange(
            sessionID: "session-ü-✓",
            startedAt: startedAt,
            duration: 0.200_000_000_123,
            request: CapturedRequest(
                method: "POST", url: "https://User@API.Example.com:8443/v1/users/42/photos?x=1&y=%20#frag",
                headers: requestHeaders,
                body: CapturedBody(data: binary, size: 10_000, contentType: "application/octet-stream", isTruncated: true)),
            response: CapturedResponse(
                statusCode: 201, headers: responseHeaders,
                body: CapturedBody(data: Data(text.utf8), contentType: "application/json", isRedacted: true),
                httpVersion: "h2", url: "https://api.example.com/v1/users/42/photos/7"),
            redirects: [
                RedirectHop(url: "http://api.example.com/v1/users/42/photos", statusCode: 301,
                    location: "https://api.example.com/v1/users/42/photos"),
                RedirectHop(url: "https://api.example.com/old", statusCode: 307, location: "/new", followed: false),
            ],
            metrics: metrics,
            labels: ["screen": "Checkout", "scenario": "weak \"network\"", "ünïcode": "✓"],
            capturePath: .session, taskKind: .upload,
            modifications: [
                ExchangeModification(rule: "staging", action: "rewrite", detail: "host api -> staging"),
                ExchangeModification(rule: "3", action: "headers", detail: "added X-Debug"),
            ])
    }

    /// An exchange that ended with an error and no response; its request body is unavailable.
    static func failed(startedAt: Date = Date()) -> Exchange {
        Exchange(
            sessionID: "s", startedAt: startedAt, duration: nil,
            request: CapturedRequest(
                method: "PUT", url: "not a url at all",
                body: .unavailable(size: nil, contentType: nil, reason: "stream body not readable on Linux")),
            error: CaptureError(category: .timeout, domain: "NSURLErrorDomain", code: -1001, message: "timed out"),
            capturePath: .imported, taskKind: .other)
    }
}

extension ExchangeFixtures {
    /// `count` random bytes (incompressible, distinct every time).
    static func randomData(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        let words = (0 ..< (count + 7) / 8).map { _ in generator.next() }
        return words.withUnsafeBytes { Data($0.prefix(count)) }
    }
}
