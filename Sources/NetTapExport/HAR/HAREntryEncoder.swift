import Foundation
import NetTapCore

/// Writes one exchange as one HAR 1.2 entry, keys always in the same order.
///
/// Layout decisions (docs/export-formats.md has the full list):
/// - Instants are quantized to microseconds and durations written in milliseconds with at most
///   three decimals, so that export, import and export again give the same bytes.
/// - Bodies: UTF-8 text as is, anything else base64 (`content.encoding`, `postData._encoding`).
///   A body's text is present exactly when its bytes were available; `bodySize` and `content.size`
///   are the original sizes, and `_bodyTruncated` says when the text holds only the first bytes.
/// - An exchange without a response is written with `status` 0, as browsers do, and `_error`.
/// - NetTap's own fields start with "_" and make the entry lossless for NetTap's importer.
enum HAREntryEncoder {
    static func append(_ exchange: Exchange, to out: inout JSONOutput) {
        let timings = HARTimings(exchange: exchange)
        out.beginObject()
        out.key("startedDateTime")
        out.timestamp(micros: ISOTimestamp.micros(exchange.startedAt))
        out.key("time")
        out.milliseconds(micros: timings.total)
        out.key("request")
        appendRequest(exchange, to: &out)
        out.key("response")
        appendResponse(exchange, to: &out)
        out.key("cache")
        out.beginObject()
        out.endObject()
        out.key("timings")
        appendTimings(timings, to: &out)
        if let address = exchange.metrics?.remoteAddress {
            out.key("serverIPAddress")
            out.string(address)
        }
        appendNetTapFields(exchange, to: &out)
        out.endObject()
    }

    // MARK: Request

    private static func appendRequest(_ exchange: Exchange, to out: inout JSONOutput) {
        let request = exchange.request
        out.beginObject()
        out.key("method")
        out.string(request.method)
        out.key("url")
        out.string(request.url)
        out.key("httpVersion")
        out.string(exchange.response?.httpVersion ?? exchange.metrics?.networkProtocol ?? "")
        out.key("cookies")
        appendCookies(HARCookie.requestCookies(in: request.headers), to: &out)
        out.key("headers")
        appendHeaders(request.headers, to: &out)
        out.key("queryString")
        appendQueryString(of: request.url, to: &out)
        if let body = request.body {
            out.key("postData")
            out.beginObject()
            out.key("mimeType")
            out.string(body.contentType ?? "")
            if body.unavailableReason == nil {
                let (text, isBase64) = encodedText(body.data)
                out.key("text")
                out.string(text)
                if isBase64 {
                    out.key("_encoding")
                    out.string("base64")
                }
            }
            out.endObject()
        }
        out.key("headersSize")
        out.int(-1)
        out.key("bodySize")
        out.int(request.body.map { $0.size ?? -1 } ?? 0)
        appendBodyFlags(request.body, to: &out)
        out.endObject()
    }

    // MARK: Response

    private static func appendResponse(_ exchange: Exchange, to out: inout JSONOutput) {
        guard let response = exchange.response else {
            appendMissingResponse(to: &out)
            return
        }
        out.beginObject()
        out.key("status")
        out.int(response.statusCode)
        out.key("statusText")
        out.string(HTTPStatusText.reason(for: response.statusCode))
        out.key("httpVersion")
        out.string(response.httpVersion ?? "")
        out.key("cookies")
        appendCookies(HARCookie.responseCookies(in: response.headers), to: &out)
        out.key("headers")
        appendHeaders(response.headers, to: &out)
        out.key("content")
        out.beginObject()
        out.key("size")
        out.int(response.body.map { $0.size ?? -1 } ?? 0)
        out.key("mimeType")
        // With a body, its own media type (so that import restores it exactly); without one, the header's.
        if let body = response.body {
            out.string(body.contentType ?? "")
        } else {
            out.string(response.headers.firstValue(asciiLowercased: "content-type") ?? "")
        }
        if let body = response.body, body.unavailableReason == nil {
            let (text, isBase64) = encodedText(body.data)
            out.key("text")
            out.string(text)
            if isBase64 {
                out.key("encoding")
                out.string("base64")
            }
        }
        out.endObject()
        out.key("redirectURL")
        out.string((300...399).contains(response.statusCode) ? response.headers.firstValue(asciiLowercased: "location") ?? "" : "")
        out.key("headersSize")
        out.int(-1)
        out.key("bodySize")
        // bodySize counts bytes on the wire; NetTap keeps decoded bytes, so with a content coding
        // the wire size is unknown.
        let codings = response.headers.firstValue(asciiLowercased: "content-encoding")
            .map { ASCIIFields.split($0, separator: UInt8(ascii: ",")) } ?? []
        if codings.contains(where: { !$0.isEmpty && !HTTPHeaders.nameMatches($0, "identity") }) {
            out.int(-1)
        } else {
            out.int(response.body.map { $0.size ?? -1 } ?? 0)
        }
        if let url = response.url {
            out.key("_url")
            out.string(url)
        }
        appendBodyFlags(response.body, to: &out)
        out.endObject()
    }

    /// What browsers write for a request that got no response: status 0 and empty parts.
    private static func appendMissingResponse(to out: inout JSONOutput) {
        out.beginObject()
        out.key("status")
        out.int(0)
        out.key("statusText")
        out.string("")
        out.key("httpVersion")
        out.string("")
        out.key("cookies")
        out.beginArray()
        out.endArray()
        out.key("headers")
        out.beginArray()
        out.endArray()
        out.key("content")
        out.beginObject()
        out.key("size")
        out.int(0)
        out.key("mimeType")
        out.string("")
        out.endObject()
        out.key("redirectURL")
        out.string("")
        out.key("headersSize")
        out.int(-1)
        out.key("bodySize")
        out.int(0)
        out.endObject()
    }

    // MARK: Parts

    private static func appendHeaders(_ headers: HTTPHeaders, to out: inout JSONOutput) {
        out.beginArray()
        for field in headers {
            out.beginObject()
            out.key("name")
            out.string(field.name)
            out.key("value")
            out.string(field.value)
            out.endObject()
        }
        out.endArray()
    }

    private static func appendCookies(_ cookies: [HARCookie], to out: inout JSONOutput) {
        out.beginArray()
        for cookie in cookies {
            out.beginObject()
            out.key("name")
            out.string(cookie.name)
            out.key("value")
            out.string(cookie.value)
            if let path = cookie.path {
                out.key("path")
                out.string(path)
            }
            if let domain = cookie.domain {
                out.key("domain")
                out.string(domain)
            }
            if let expires = cookie.expires {
                out.key("expires")
                out.timestamp(micros: expires)
            }
            if cookie.httpOnly {
                out.key("httpOnly")
                out.bool(true)
            }
            if cookie.secure {
                out.key("secure")
                out.bool(true)
            }
            if let sameSite = cookie.sameSite {
                out.key("sameSite")
                out.string(sameSite)
            }
            out.endObject()
        }
        out.endArray()
    }

    /// Query parameters in order, percent-decoded where the encoding is valid ("+" is kept: only
    /// form bodies give it a meaning). Scans UTF-8 bytes: Character-level scanning was a sixth of
    /// export time.
    private static func appendQueryString(of url: String, to out: inout JSONOutput) {
        out.beginArray()
        var url = url
        url.withUTF8 { bytes in
            guard let question = bytes.firstIndex(of: UInt8(ascii: "?")) else { return }
            let end = bytes[(question + 1)...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
            var start = question + 1
            while start < end {
                let ampersand = bytes[start..<end].firstIndex(of: UInt8(ascii: "&")) ?? end
                if ampersand > start {
                    let equals = bytes[start..<ampersand].firstIndex(of: UInt8(ascii: "=")) ?? ampersand
                    out.beginObject()
                    out.key("name")
                    out.string(percentDecoded(UnsafeBufferPointer(rebasing: bytes[start..<equals])))
                    out.key("value")
                    out.string(percentDecoded(UnsafeBufferPointer(rebasing: bytes[min(equals + 1, ampersand)..<ampersand])))
                    out.endObject()
                }
                start = ampersand + 1
            }
        }
        out.endArray()
    }

    /// Foundation's percent decoding is slow; most query parts have nothing to decode.
    private static func percentDecoded(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        guard bytes.contains(UInt8(ascii: "%")) else { return text }
        return text.removingPercentEncoding ?? text
    }

    private static func appendTimings(_ timings: HARTimings, to out: inout JSONOutput) {
        func phase(_ micros: Int64) {
            // HARTimings marks an unknown phase with -1 microsecond; HAR wants -1 millisecond.
            if micros < 0 { out.int(-1) } else { out.milliseconds(micros: micros) }
        }
        out.beginObject()
        out.key("blocked")
        phase(timings.blocked)
        out.key("dns")
        phase(timings.dns)
        out.key("connect")
        phase(timings.connect)
        out.key("send")
        phase(timings.send)
        out.key("wait")
        phase(timings.wait)
        out.key("receive")
        phase(timings.receive)
        out.key("ssl")
        phase(timings.ssl)
        out.endObject()
    }

    private static func appendBodyFlags(_ body: CapturedBody?, to out: inout JSONOutput) {
        guard let body else { return }
        if body.isTruncated {
            out.key("_bodyTruncated")
            out.bool(true)
        }
        if body.isRedacted {
            out.key("_bodyRedacted")
            out.bool(true)
        }
        if let reason = body.unavailableReason {
            out.key("_bodyUnavailable")
            out.string(reason)
        }
    }

    /// The body as HAR text: itself when it is UTF-8, else base64.
    private static func encodedText(_ data: Data) -> (String, isBase64: Bool) {
        if let text = UTF8Text.string(data) {
            return (text, false)
        }
        return (data.base64EncodedString(), true)
    }

    // MARK: NetTap fields

    private static func appendNetTapFields(_ exchange: Exchange, to out: inout JSONOutput) {
        out.key("_id")
        out.string(exchange.id.uuidString)
        out.key("_sessionId")
        out.string(exchange.sessionID)
        out.key("_capturePath")
        out.string(exchange.capturePath.rawValue)
        out.key("_taskKind")
        out.string(exchange.taskKind.rawValue)
        out.key("_labels")
        out.beginObject()
        for key in exchange.labels.keys.sorted() {
            out.key(key)
            out.string(exchange.labels[key] ?? "")
        }
        out.endObject()
        if let error = exchange.error {
            out.key("_error")
            out.beginObject()
            out.key("category")
            out.string(error.category.rawValue)
            out.key("domain")
            out.string(error.domain)
            out.key("code")
            out.int(error.code)
            out.key("message")
            out.string(error.message)
            out.endObject()
        }
        if !exchange.redirects.isEmpty {
            out.key("_redirects")
            out.beginArray()
            for hop in exchange.redirects {
                out.beginObject()
                out.key("url")
                out.string(hop.url)
                out.key("statusCode")
                out.int(hop.statusCode)
                out.key("location")
                out.string(hop.location)
                out.key("followed")
                out.bool(hop.followed)
                out.endObject()
            }
            out.endArray()
        }
        if !exchange.modifications.isEmpty {
            out.key("_modifications")
            out.beginArray()
            for modification in exchange.modifications {
                out.beginObject()
                out.key("rule")
                out.string(modification.rule)
                out.key("action")
                out.string(modification.action)
                out.key("detail")
                out.string(modification.detail)
                out.endObject()
            }
            out.endArray()
        }
        out.key("_metrics")
        if let metrics = exchange.metrics {
            appendMetrics(metrics, to: &out)
        } else {
            out.null()
        }
        if exchange.duration == nil {
            out.key("_durationUnknown")
            out.bool(true)
        }
    }

    /// The raw instants, so that NetTap's importer restores them exactly (HAR's `timings` are
    /// durations and lose where the gaps were).
    private static func appendMetrics(_ metrics: TimingMetrics, to out: inout JSONOutput) {
        out.beginObject()
        func instant(_ name: StaticString, _ date: Date?) {
            guard let date else { return }
            out.key(name)
            out.timestamp(micros: ISOTimestamp.micros(date))
        }
        instant("fetchStart", metrics.fetchStart)
        instant("domainLookupStart", metrics.domainLookupStart)
        instant("domainLookupEnd", metrics.domainLookupEnd)
        instant("connectStart", metrics.connectStart)
        instant("connectEnd", metrics.connectEnd)
        instant("secureConnectionStart", metrics.secureConnectionStart)
        instant("secureConnectionEnd", metrics.secureConnectionEnd)
        instant("requestStart", metrics.requestStart)
        instant("requestEnd", metrics.requestEnd)
        instant("responseStart", metrics.responseStart)
        instant("responseEnd", metrics.responseEnd)
        if let address = metrics.remoteAddress {
            out.key("remoteAddress")
            out.string(address)
        }
        if let port = metrics.remotePort {
            out.key("remotePort")
            out.int(port)
        }
        if let reused = metrics.isReusedConnection {
            out.key("isReusedConnection")
            out.bool(reused)
        }
        if let networkProtocol = metrics.networkProtocol {
            out.key("networkProtocol")
            out.string(networkProtocol)
        }
        if let sent = metrics.bytesSent {
            out.key("bytesSent")
            out.int(sent)
        }
        if let received = metrics.bytesReceived {
            out.key("bytesReceived")
            out.int(received)
        }
        out.endObject()
    }
}
