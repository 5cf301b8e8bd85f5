import Foundation
import NetTapCore

/// The column values of one exchange as the store writes them into `exchanges`, `bodies` and
/// `exchange_labels` (docs/schema.md). Built off the database queue, so that encoding runs in
/// parallel with SQLite.
///
/// The text columns are written one after another into a single `ColumnBytes`, which the
/// writer binds in place; `columns.string(record.url)` reads one back.
package struct ExchangeRecord: Sendable {
    /// The bytes of every text column below.
    package var columns: ColumnBytes
    package var id: ColumnText
    package var sessionID: ColumnText
    package var startedAt: Double
    package var startedRef: Double
    package var duration: Double?
    package var method: ColumnText
    package var url: ColumnText
    package var host: ColumnText?
    package var path: ColumnText
    package var urlTemplate: ColumnText
    package var status: Int64?
    package var errorCategory: ColumnText?
    package var errorDomain: ColumnText?
    package var errorCode: Int64?
    package var errorMessage: ColumnText?
    package var requestSize: Int64?
    package var responseSize: Int64?
    package var requestHeaders: ColumnText
    package var responseHeaders: ColumnText?
    package var requestBodyInfo: ColumnText?
    package var responseBodyInfo: ColumnText?
    package var requestBody: BodyRecord?
    package var responseBody: BodyRecord?
    package var httpVersion: ColumnText?
    package var responseURL: ColumnText?
    package var labels: ColumnText
    package var labelPairs: [(key: String, value: String)]
    package var capturePath: ColumnText
    package var taskKind: ColumnText
    package var redirects: ColumnText?
    package var metrics: ColumnText?
    package var modifications: ColumnText?

    /// Encodes `exchange`; throws when it holds a value SQLite cannot keep faithfully.
    package init(_ exchange: Exchange, compressionThreshold: Int) throws {
        guard exchange.startedAt.timeIntervalSinceReferenceDate.isFinite else {
            throw ExchangeStoreError.invalidExchange(id: exchange.id, reason: "startedAt is not a finite date")
        }
        if let duration = exchange.duration, !duration.isFinite {
            throw ExchangeStoreError.invalidExchange(id: exchange.id, reason: "duration is not a finite number")
        }
        // Read once each: every access through `Exchange`'s storage returns a copy.
        let request = exchange.request
        let response = exchange.response
        let error = exchange.error
        var writer = JSONWriter(capacity: 2048)
        /// Appends one column to `writer` and returns where it sits.
        func column(_ write: (inout JSONWriter) -> Void) -> ColumnText {
            let start = writer.count
            write(&writer)
            return ColumnText(start: start, count: writer.count - start)
        }
        func text(_ value: String) -> ColumnText { column { $0.plain(value) } }
        func text(_ value: String?) -> ColumnText? { value.map { text($0) } }

        id = text(exchange.id.storedText)
        sessionID = text(exchange.sessionID)
        startedAt = exchange.startedAt.timeIntervalSince1970
        startedRef = exchange.startedAt.timeIntervalSinceReferenceDate
        duration = exchange.duration
        method = text(request.method)
        url = text(request.url)
        let parts = URLParts(request.url)
        host = text(parts.host)
        path = text(parts.path)
        urlTemplate = text(URLTemplate.template(forPath: parts.path))
        status = response.map { Int64($0.statusCode) }
        errorCategory = text(error?.category.rawValue)
        errorDomain = text(error?.domain)
        errorCode = error.map { Int64($0.code) }
        errorMessage = text(error?.message)
        requestSize = request.body?.size
        responseSize = response?.body?.size
        requestHeaders = column { Self.write(request.headers, into: &$0) }
        responseHeaders = response.map { response in column { Self.write(response.headers, into: &$0) } }
        requestBodyInfo = request.body.map { body in column { Self.writeInfo(body, into: &$0) } }
        responseBodyInfo = response?.body.map { body in column { Self.writeInfo(body, into: &$0) } }
        requestBody = request.body.flatMap {
            $0.data.isEmpty ? nil : BodyRecord(bytes: $0.data, compressionThreshold: compressionThreshold)
        }
        responseBody = response?.body.flatMap {
            $0.data.isEmpty ? nil : BodyRecord(bytes: $0.data, compressionThreshold: compressionThreshold)
        }
        httpVersion = text(response?.httpVersion)
        responseURL = text(response?.url)
        let pairs = exchange.labels.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
        labelPairs = pairs
        labels = column { Self.write(pairs, into: &$0) }
        capturePath = text(exchange.capturePath.rawValue)
        taskKind = text(exchange.taskKind.rawValue)
        let redirectHops = exchange.redirects
        redirects = redirectHops.isEmpty ? nil : column { Self.write(redirectHops, into: &$0) }
        metrics = exchange.metrics.map { metrics in column { Self.write(metrics, into: &$0) } }
        let changes = exchange.modifications
        modifications = changes.isEmpty ? nil : column { Self.write(changes, into: &$0) }
        columns = ColumnBytes(writer.bytes)
    }

    // MARK: JSON columns (read back by ExchangeRow)

    /// The headers column as text (for tests).
    static func json(_ headers: HTTPHeaders) -> String {
        var writer = JSONWriter(capacity: 512)
        write(headers, into: &writer)
        return writer.text
    }

    /// `[{"name":…,"value":…},…]`, written by hand: the structured writer's comma bookkeeping and
    /// escaping of the constant keys were a third of this column's cost, the most written one.
    static func write(_ headers: HTTPHeaders, into writer: inout JSONWriter) {
        writer.raw("[")
        var first = true
        for field in headers {
            if first {
                writer.raw("{\"name\":")
                first = false
            } else {
                writer.raw(",{\"name\":")
            }
            writer.quoted(field.name)
            writer.raw(",\"value\":")
            writer.quoted(field.value)
            writer.raw("}")
        }
        writer.raw("]")
    }

    static func write(_ pairs: [(key: String, value: String)], into writer: inout JSONWriter) {
        writer.beginObject()
        for pair in pairs { writer.field(pair.key, pair.value) }
        writer.endObject()
    }

    /// Everything about a body except its bytes and size (which have their own columns).
    static func writeInfo(_ body: CapturedBody, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("contentType", body.contentType)
        if body.isTruncated { writer.field("truncated", true) }
        if body.isRedacted { writer.field("redacted", true) }
        writer.field("unavailable", body.unavailableReason)
        writer.endObject()
    }

    static func write(_ redirects: [RedirectHop], into writer: inout JSONWriter) {
        writer.beginArray()
        for hop in redirects {
            writer.beginObject()
            writer.field("url", hop.url)
            writer.field("statusCode", hop.statusCode.map(Int64.init))
            writer.field("location", hop.location)
            writer.field("followed", hop.followed)
            writer.endObject()
        }
        writer.endArray()
    }

    static func write(_ modifications: [ExchangeModification], into writer: inout JSONWriter) {
        writer.beginArray()
        for modification in modifications {
            writer.beginObject()
            writer.field("rule", modification.rule)
            writer.field("action", modification.action)
            writer.field("detail", modification.detail)
            writer.endObject()
        }
        writer.endArray()
    }

    /// Dates as seconds since 2001-01-01 (Foundation's reference date), which reads back exactly.
    static func write(_ metrics: TimingMetrics, into writer: inout JSONWriter) {
        writer.beginObject()
        let dates: [(String, Date?)] = [
            ("fetchStart", metrics.fetchStart), ("domainLookupStart", metrics.domainLookupStart),
            ("domainLookupEnd", metrics.domainLookupEnd), ("connectStart", metrics.connectStart),
            ("connectEnd", metrics.connectEnd), ("secureConnectionStart", metrics.secureConnectionStart),
            ("secureConnectionEnd", metrics.secureConnectionEnd), ("requestStart", metrics.requestStart),
            ("requestEnd", metrics.requestEnd), ("responseStart", metrics.responseStart),
            ("responseEnd", metrics.responseEnd),
        ]
        for (name, date) in dates {
            writer.field(name, date?.timeIntervalSinceReferenceDate)
        }
        writer.field("remoteAddress", metrics.remoteAddress)
        writer.field("remotePort", metrics.remotePort.map(Int64.init))
        writer.field("isReusedConnection", metrics.isReusedConnection)
        writer.field("networkProtocol", metrics.networkProtocol)
        writer.field("bytesSent", metrics.bytesSent)
        writer.field("bytesReceived", metrics.bytesReceived)
        writer.endObject()
    }
}
