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
        out.member("serverIPAddress", ifPresent: exchange.metrics?.remoteAddress)
        appendNetTapFields(exchange, to: &out)
        out.endObject()
    }

    // MARK: Request

    private static func appendRequest(_ exchange: Exchange, to out: inout JSONOutput) {
        let request = exchange.request
        out.beginObject()
        out.member("method", request.method)
        out.member("url", request.url)
        out.member("httpVersion", exchange.response?.httpVersion ?? exchange.metrics?.networkProtocol ?? "")
        out.key("cookies")
        appendCookies(HARCookie.requestCookies(in: request.headers), to: &out)
        out.key("headers")
        appendHeaders(request.headers, to: &out)
        out.key("queryString")
        appendQueryString(of: request.url, to: &out)
        if let body = request.body {
            out.key("postData")
            out.beginObject()
            out.member("mimeType", body.contentType ?? "")
            if body.unavailableReason == nil {
                let (text, isBase64) = encodedText(body.data)
                out.member("text", text)
                if isBase64 {
                    out.member("_encoding", "base64")
                }
            }
            out.endObject()
        }
        out.member("headersSize", int: -1)
        out.member("bodySize", int: request.body.map { $0.size ?? -1 } ?? 0)
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
        out.member("status", int: response.statusCode)
        out.member("statusText", HTTPStatusText.reason(for: response.statusCode))
        out.member("httpVersion", response.httpVersion ?? "")
        out.key("cookies")
        appendCookies(HARCookie.responseCookies(in: response.headers), to: &out)
        out.key("headers")
        appendHeaders(response.headers, to: &out)
        out.key("content")
        out.beginObject()
        out.member("size", int: response.body.map { $0.size ?? -1 } ?? 0)
        // With a body, its own media type (so that import restores it exactly); without one, the header's.
        let mimeType = response.body.map { $0.contentType ?? "" }
            ?? response.headers["content-type"] ?? ""
        out.member("mimeType", mimeType)
        if let body = response.body, body.unavailableReason == nil {
            let (text, isBase64) = encodedText(body.data)
            out.member("text", text)
            if isBase64 {
                out.member("encoding", "base64")
            }
        }
        out.endObject()
        let isRedirect = (300...399).contains(response.statusCode)
        out.member("redirectURL", isRedirect ? response.headers["location"] ?? "" : "")
        out.member("headersSize", int: -1)
        // bodySize counts bytes on the wire; NetTap keeps decoded bytes, so under a content coding
        // the wire size is unknown.
        let codings = response.headers["content-encoding"]
            .map { ASCIIFields.split($0, separator: UInt8(ascii: ",")) } ?? []
        let isEncoded = codings.contains { !$0.isEmpty && !HTTPHeaders.namesEqual($0, "identity") }
        out.member("bodySize", int: isEncoded ? -1 : response.body.map { $0.size ?? -1 } ?? 0)
        out.member("_url", ifPresent: response.url)
        appendBodyFlags(response.body, to: &out)
        out.endObject()
    }

    /// What browsers write for a request that got no response: status 0 and empty parts.
    private static func appendMissingResponse(to out: inout JSONOutput) {
        out.beginObject()
        out.member("status", int: 0)
        out.member("statusText", "")
        out.member("httpVersion", "")
        out.key("cookies")
        out.beginArray()
        out.endArray()
        out.key("headers")
        out.beginArray()
        out.endArray()
        out.key("content")
        out.beginObject()
        out.member("size", int: 0)
        out.member("mimeType", "")
        out.endObject()
        out.member("redirectURL", "")
        out.member("headersSize", int: -1)
        out.member("bodySize", int: 0)
        out.endObject()
    }

    // MARK: Parts

    private static func appendHeaders(_ headers: HTTPHeaders, to out: inout JSONOutput) {
        out.beginArray()
        for field in headers {
            out.beginObject()
            out.member("name", field.name)
            out.member("value", field.value)
            out.endObject()
        }
        out.endArray()
    }

    private static func appendCookies(_ cookies: [HARCookie], to out: inout JSONOutput) {
        out.beginArray()
        for cookie in cookies {
            out.beginObject()
            out.member("name", cookie.name)
            out.member("value", cookie.value)
            out.member("path", ifPresent: cookie.path)
            out.member("domain", ifPresent: cookie.domain)
            if let expires = cookie.expires {
                out.key("expires")
                out.timestamp(micros: expires)
            }
            if cookie.httpOnly {
                out.member("httpOnly", bool: true)
            }
            if cookie.secure {
                out.member("secure", bool: true)
            }
            out.member("sameSite", ifPresent: cookie.sameSite)
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
                    out.member("name", percentDecoded(UnsafeBufferPointer(rebasing: bytes[start..<equals])))
                    out.member("value", percentDecoded(UnsafeBufferPointer(rebasing: bytes[min(equals + 1, ampersand)..<ampersand])))
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
        func phase(_ name: StaticString, _ micros: Int64) {
            out.key(name)
            // HARTimings marks an unknown phase with -1 microsecond; HAR wants -1 millisecond.
            if micros < 0 { out.int(-1) } else { out.milliseconds(micros: micros) }
        }
        out.beginObject()
        phase("blocked", timings.blocked)
        phase("dns", timings.dns)
        phase("connect", timings.connect)
        phase("send", timings.send)
        phase("wait", timings.wait)
        phase("receive", timings.receive)
        phase("ssl", timings.ssl)
        out.endObject()
    }

    private static func appendBodyFlags(_ body: CapturedBody?, to out: inout JSONOutput) {
        guard let body else { return }
        if body.isTruncated {
            out.member("_bodyTruncated", bool: true)
        }
        if body.isRedacted {
            out.member("_bodyRedacted", bool: true)
        }
        out.member("_bodyUnavailable", ifPresent: body.unavailableReason)
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
        out.member("_id", exchange.id.uuidString)
        out.member("_sessionId", exchange.sessionID)
        out.member("_capturePath", exchange.capturePath.rawValue)
        out.member("_taskKind", exchange.taskKind.rawValue)
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
            out.member("category", error.category.rawValue)
            out.member("domain", error.domain)
            out.member("code", int: error.code)
            out.member("message", error.message)
            out.endObject()
        }
        if !exchange.redirects.isEmpty {
            out.key("_redirects")
            out.beginArray()
            for hop in exchange.redirects {
                out.beginObject()
                out.member("url", hop.url)
                if let statusCode = hop.statusCode { out.member("statusCode", int: statusCode) }
                out.member("location", hop.location)
                out.member("followed", bool: hop.followed)
                out.endObject()
            }
            out.endArray()
        }
        if !exchange.modifications.isEmpty {
            out.key("_modifications")
            out.beginArray()
            for modification in exchange.modifications {
                out.beginObject()
                out.member("rule", modification.rule)
                out.member("action", modification.action)
                out.member("detail", modification.detail)
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
            out.member("_durationUnknown", bool: true)
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
        out.member("remoteAddress", ifPresent: metrics.remoteAddress)
        if let port = metrics.remotePort {
            out.member("remotePort", int: port)
        }
        if let reused = metrics.isReusedConnection {
            out.member("isReusedConnection", bool: reused)
        }
        out.member("networkProtocol", ifPresent: metrics.networkProtocol)
        if let sent = metrics.bytesSent {
            out.member("bytesSent", int: sent)
        }
        if let received = metrics.bytesReceived {
            out.member("bytesReceived", int: received)
        }
        out.endObject()
    }
}
