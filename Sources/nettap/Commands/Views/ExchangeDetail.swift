import Foundation
import NetTapCore
import NetTapServer

/// One exchange as `nettap show` prints it: a summary, the request and response in the style of
/// `curl -v` (`>` and `<`), their bodies, the timing breakdown, redirects, labels and the rules
/// that changed it.
enum ExchangeDetail {
    static func render(_ exchange: Exchange) -> String {
        var lines: [String] = []
        lines += summary(exchange)
        lines.append("")
        lines += request(exchange.request)
        if let response = exchange.response {
            lines.append("")
            lines += self.response(response, requestURL: exchange.request.url)
        }
        let timing = self.timing(exchange)
        if !timing.isEmpty {
            lines.append("")
            lines += timing
        }
        if !exchange.redirects.isEmpty {
            lines += ["", "Redirects"]
            for hop in exchange.redirects {
                let status = hop.statusCode.map(String.init) ?? "3xx"
                lines.append("  \(status)  \(hop.url) -> \(hop.location)\(hop.followed ? "" : "  (not followed)")")
            }
        }
        if !exchange.modifications.isEmpty {
            lines += ["", "Modified by rules"]
            for modification in exchange.modifications {
                lines.append("  \(modification.rule) (\(modification.action)): \(modification.detail)")
            }
        }
        return lines.joined(separator: "\n")
    }

    private static func summary(_ exchange: Exchange) -> [String] {
        var rows: [(String, String)] = [
            ("Exchange", exchange.id.uuidString),
            ("Started", TextFormat.localTimeWithZone(exchange.startedAt) + "  (\(TextFormat.utcTime(exchange.startedAt)))"),
            ("Duration", TextFormat.duration(exchange.duration)),
        ]
        if let response = exchange.response {
            rows.append(("Status", "\(response.statusCode) \(HTTPStatus.reasonPhrase(for: response.statusCode))"))
        }
        if let error = exchange.error {
            rows.append(("Error", "\(error.category.rawValue): \(error.message) (\(error.domain) \(error.code))"))
        }
        rows.append(("Session", exchange.sessionID))
        rows.append(("Captured", "\(exchange.capturePath.rawValue) path, \(exchange.taskKind.rawValue) task"))
        if !exchange.labels.isEmpty {
            rows.append(("Labels", exchange.labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")))
        }
        return rows.map { TextFormat.padded($0.0, to: 10) + $0.1 }
    }

    private static func request(_ request: CapturedRequest) -> [String] {
        var lines = ["> \(request.method) \(request.url)"]
        lines += request.headers.map { "> \($0.name): \($0.value)" }
        if let body = request.body {
            lines.append("")
            lines += BodyText.render(body, title: "Request body")
        }
        return lines
    }

    private static func response(_ response: CapturedResponse, requestURL: String) -> [String] {
        var status = "< \(response.statusCode) \(HTTPStatus.reasonPhrase(for: response.statusCode))"
        if let version = response.httpVersion { status += "  (\(version))" }
        var lines = [status]
        // After redirects the answer came from elsewhere.
        if let url = response.url, url != requestURL { lines.append("< from \(url)") }
        lines += response.headers.map { "< \($0.name): \($0.value)" }
        if let body = response.body {
            lines.append("")
            lines += BodyText.render(body, title: "Response body")
        }
        return lines
    }

    /// The phases the metrics know, in order, and the connection facts.
    private static func timing(_ exchange: Exchange) -> [String] {
        guard let metrics = exchange.metrics else { return [] }
        let interval = TimingMetrics.interval
        // The first byte is awaited from the end of the request, else from the last earlier instant known.
        let waitStart = metrics.requestEnd ?? metrics.requestStart ?? metrics.connectEnd ?? metrics.fetchStart
        let phases: [(String, TimeInterval?)] = [
            ("queued", interval(metrics.fetchStart, metrics.domainLookupStart ?? metrics.connectStart ?? metrics.requestStart)),
            ("dns", interval(metrics.domainLookupStart, metrics.domainLookupEnd)),
            ("connect", interval(metrics.connectStart, metrics.connectEnd)),
            ("tls", interval(metrics.secureConnectionStart, metrics.secureConnectionEnd)),
            ("send", interval(metrics.requestStart, metrics.requestEnd)),
            ("wait", interval(waitStart, metrics.responseStart)),
            ("receive", interval(metrics.responseStart, metrics.responseEnd)),
        ]
        var lines = ["Timing"]
        lines.append("  " + TextFormat.padded("total", to: 12) + TextFormat.duration(exchange.duration))
        for (name, value) in phases {
            guard let value else { continue }
            lines.append("  " + TextFormat.padded(name, to: 12) + TextFormat.duration(value))
        }
        var connection: [String] = []
        if let address = metrics.remoteAddress {
            connection.append(metrics.remotePort.map { "\(address) port \($0)" } ?? address)
        }
        if let networkProtocol = metrics.networkProtocol { connection.append(networkProtocol) }
        if let reused = metrics.isReusedConnection { connection.append(reused ? "reused" : "new connection") }
        if let sent = metrics.bytesSent { connection.append("\(sent) bytes sent") }
        if let received = metrics.bytesReceived { connection.append("\(received) bytes received") }
        if !connection.isEmpty {
            lines.append("  " + TextFormat.padded("connection", to: 12) + connection.joined(separator: ", "))
        }
        return lines
    }
}
