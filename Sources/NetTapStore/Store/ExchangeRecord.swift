import Foundation
import NetTapCore

/// The column values of one exchange as the store writes them into `exchanges`, `bodies` and
/// `exchange_labels` (docs/schema.md). Built off the database queue, so that encoding runs in
/// parallel with SQLite.
package struct ExchangeRecord: Sendable {
    package var id: String
    package var sessionID: String
    package var startedAt: Double
    package var startedRef: Double
    package var duration: Double?
    package var method: String
    package var url: String
    package var host: String?
    package var path: String
    package var urlTemplate: String
    package var status: Int64?
    package var errorCategory: String?
    package var errorDomain: String?
    package var errorCode: Int64?
    package var errorMessage: String?
    package var requestSize: Int64?
    package var responseSize: Int64?
    package var requestHeaders: String
    package var responseHeaders: String?
    package var requestBodyInfo: String?
    package var responseBodyInfo: String?
    package var requestBody: BodyRecord?
    package var responseBody: BodyRecord?
    package var httpVersion: String?
    package var responseURL: String?
    package var labels: String
    package var labelPairs: [(key: String, value: String)]
    package var capturePath: String
    package var taskKind: String
    package var redirects: String?
    package var metrics: String?
    package var modifications: String?

    /// Encodes `exchange`; throws when it holds a value SQLite cannot keep faithfully.
    package init(_ exchange: Exchange, compressionThreshold: Int) throws {
        guard exchange.startedAt.timeIntervalSinceReferenceDate.isFinite else {
            throw ExchangeStoreError.invalidExchange(id: exchange.id, reason: "startedAt is not a finite date")
        }
        if let duration = exchange.duration, !duration.isFinite {
            throw ExchangeStoreError.invalidExchange(id: exchange.id, reason: "duration is not a finite number")
        }
        id = exchange.id.storedText
        sessionID = exchange.sessionID
        startedAt = exchange.startedAt.timeIntervalSince1970
        startedRef = exchange.startedAt.timeIntervalSinceReferenceDate
        duration = exchange.duration
        method = exchange.request.method
        url = exchange.request.url
        let parts = URLParts(exchange.request.url)
        host = parts.host
        path = parts.path
        urlTemplate = URLTemplate.template(forPath: parts.path)
        status = exchange.response.map { Int64($0.statusCode) }
        errorCategory = exchange.error?.category.rawValue
        errorDomain = exchange.error?.domain
        errorCode = exchange.error.map { Int64($0.code) }
        errorMessage = exchange.error?.message
        requestSize = exchange.request.body?.size
        responseSize = exchange.response?.body?.size
        requestHeaders = Self.json(exchange.request.headers)
        responseHeaders = exchange.response.map { Self.json($0.headers) }
        requestBodyInfo = exchange.request.body.map(Self.info)
        responseBodyInfo = exchange.response?.body.map(Self.info)
        requestBody = exchange.request.body.flatMap {
            $0.data.isEmpty ? nil : BodyRecord(bytes: $0.data, compressionThreshold: compressionThreshold)
        }
        responseBody = exchange.response?.body.flatMap {
            $0.data.isEmpty ? nil : BodyRecord(bytes: $0.data, compressionThreshold: compressionThreshold)
        }
        httpVersion = exchange.response?.httpVersion
        responseURL = exchange.response?.url
        labelPairs = exchange.labels.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
        labels = Self.json(labelPairs)
        capturePath = exchange.capturePath.rawValue
        taskKind = exchange.taskKind.rawValue
        redirects = exchange.redirects.isEmpty ? nil : Self.json(exchange.redirects)
        metrics = exchange.metrics.map(Self.json)
        modifications = exchange.modifications.isEmpty ? nil : Self.json(exchange.modifications)
    }

    // MARK: JSON columns (read back by ExchangeRow)

    /// `[{"name":…,"value":…},…]`, written by hand: the structured writer's comma bookkeeping and
    /// escaping of the constant keys were a third of this column's cost, the most written one.
    static func json(_ headers: HTTPHeaders) -> String {
        var writer = JSONWriter(capacity: 512)
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
        return writer.text
    }

    static func json(_ pairs: [(key: String, value: String)]) -> String {
        var writer = JSONWriter(capacity: 64)
        writer.beginObject()
        for pair in pairs { writer.field(pair.key, pair.value) }
        writer.endObject()
        return writer.text
    }

    /// Everything about a body except its bytes and size (which have their own columns).
    static func info(_ body: CapturedBody) -> String {
        var writer = JSONWriter(capacity: 64)
        writer.beginObject()
        writer.field("contentType", body.contentType)
        if body.isTruncated { writer.field("truncated", true) }
        if body.isRedacted { writer.field("redacted", true) }
        writer.field("unavailable", body.unavailableReason)
        writer.endObject()
        return writer.text
    }

    static func json(_ redirects: [RedirectHop]) -> String {
        var writer = JSONWriter()
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
        return writer.text
    }

    static func json(_ modifications: [ExchangeModification]) -> String {
        var writer = JSONWriter()
        writer.beginArray()
        for modification in modifications {
            writer.beginObject()
            writer.field("rule", modification.rule)
            writer.field("action", modification.action)
            writer.field("detail", modification.detail)
            writer.endObject()
        }
        writer.endArray()
        return writer.text
    }

    /// Dates as seconds since 2001-01-01 (Foundation's reference date), which reads back exactly.
    static func json(_ metrics: TimingMetrics) -> String {
        var writer = JSONWriter()
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
        return writer.text
    }
}
