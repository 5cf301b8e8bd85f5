import Foundation
import NetTapCore
import NetTapRules

/// Realistic captured traffic for the store benchmark: a few hosts, REST paths with IDs, mostly
/// GETs, a few failures, JSON bodies of a few hundred bytes to a few KiB (some repeated, most
/// unique), typical headers, labels and the timing Linux capture records.
struct StoreBenchmarkWorkload {
    /// Seeded, so that every run of the benchmark stores the same data (the throttle's generator).
    private var random: ThrottleRandom
    private let start: Date
    private static let hosts = ["api.example.com", "auth.example.com", "cdn.example.net", "feed.example.org", "pay.example.com"]
    private static let screens = ["home", "feed", "profile", "checkout", "settings", "search"]
    /// Bodies that many responses share (empty lists, "ok", config).
    private static let repeatedBodies: [Data] = (0 ..< 50).map { index in
        Data("{\"ok\":true,\"items\":[],\"config\":\(index),\"features\":[\"a\",\"b\",\"c\"]}".utf8)
    }

    init(seed: UInt64, start: Date = Date(timeIntervalSince1970: 1_764_000_000)) {
        random = ThrottleRandom(seed: seed)
        self.start = start
    }

    mutating func exchange(_ index: Int) -> Exchange {
        let host = Self.hosts[Int(random.next() % UInt64(Self.hosts.count))]
        let roll = random.next() % 100
        let method = roll < 70 ? "GET" : roll < 90 ? "POST" : roll < 96 ? "PUT" : "DELETE"
        let resource = ["users", "orders", "items", "feed", "photos"][Int(random.next() % 5)]
        let url = "https://\(host)/v2/\(resource)/\(random.next() % 100_000)?page=\(index % 7)&lang=en"
        let startedAt = start.addingTimeInterval(Double(index) * 0.01)
        let duration = 0.02 + Double(random.next() % 2_000) / 1000
        var requestHeaders: HTTPHeaders = [
            "Accept": "application/json", "Accept-Language": "en-GB", "User-Agent": "ShopApp/5.4.1 (iOS 18.1)",
            "Authorization": "[REDACTED]", "X-Request-ID": "req-\(index)",
        ]
        var requestBody: CapturedBody?
        if method == "POST" || method == "PUT" {
            requestHeaders.add(name: "Content-Type", value: "application/json")
            requestBody = CapturedBody(
                data: Data("{\"id\":\(index),\"quantity\":\(random.next() % 9),\"note\":\"please deliver after 6pm\"}".utf8),
                contentType: "application/json")
        }
        let statusRoll = random.next() % 1000
        let metrics = TimingMetrics(
            fetchStart: startedAt, responseStart: startedAt.addingTimeInterval(duration * 0.7),
            responseEnd: startedAt.addingTimeInterval(duration), bytesSent: 512, bytesReceived: 2048)
        let labels = ["screen": Self.screens[index % Self.screens.count], "build": "5.4.1"]
        if statusRoll < 8 {
            return Exchange(
                id: .timeOrdered(at: startedAt, using: &random), sessionID: "session-\(index / 10_000)", startedAt: startedAt, duration: duration,
                request: CapturedRequest(method: method, url: url, headers: requestHeaders, body: requestBody),
                error: CaptureError(category: .timeout, domain: "NSURLErrorDomain", code: -1001, message: "The request timed out."),
                metrics: metrics, labels: labels, capturePath: .urlProtocol)
        }
        let status = statusRoll < 30 ? 500 : statusRoll < 80 ? 404 : statusRoll < 100 ? 304 : 200
        let body: Data
        if random.next() % 4 == 0 {
            body = Self.repeatedBodies[Int(random.next() % UInt64(Self.repeatedBodies.count))]
        } else {
            body = uniqueBody(index)
        }
        let responseHeaders: HTTPHeaders = [
            "Content-Type": "application/json; charset=utf-8", "Cache-Control": "private, max-age=0",
            "Date": "Tue, 02 Dec 2025 14:00:00 GMT", "Server": "nginx", "X-Request-ID": "req-\(index)",
            "Content-Length": "\(body.count)", "Vary": "Accept-Encoding",
        ]
        return Exchange(
            id: .timeOrdered(at: startedAt, using: &random), sessionID: "session-\(index / 10_000)", startedAt: startedAt, duration: duration,
            request: CapturedRequest(method: method, url: url, headers: requestHeaders, body: requestBody),
            response: CapturedResponse(
                statusCode: status, headers: responseHeaders,
                body: CapturedBody(data: body, contentType: "application/json"), httpVersion: "HTTP/1.1"),
            metrics: metrics, labels: labels, capturePath: .urlProtocol)
    }

    /// A JSON list of 1 to 12 records: about 100 bytes to 1.5 KiB, some above the compression threshold.
    private mutating func uniqueBody(_ index: Int) -> Data {
        var text = "{\"page\":\(index),\"items\":["
        let count = 1 + Int(random.next() % 12)
        for item in 0 ..< count {
            if item > 0 { text += "," }
            text += "{\"id\":\(random.next() % 1_000_000),\"name\":\"Item \(item)\",\"price\":\(random.next() % 10_000)}"
        }
        text += "]}"
        return Data(text.utf8)
    }
}
