import Foundation
import NetTapCore

/// Turns rows of `exchanges` (selected with `StoreSchema.exchangeColumns`) back into the exact
/// `Exchange` values that were stored. Used on the store's queue.
struct ExchangeRowReader {
    let db: Database
    let includeBodies: Bool

    init(db: Database, includeBodies: Bool) {
        self.db = db
        self.includeBodies = includeBodies
    }

    /// The body descriptor column: everything but bytes and size.
    private struct BodyInfo {
        var contentType: String?
        var truncated = false
        var redacted = false
        var unavailable: String?
    }

    /// A column that did not hold what the store writes.
    private struct ColumnError: Error {
        var reason: String
    }

    func exchange(from row: Statement) throws -> Exchange {
        let rowid = row.int64(at: 0)
        func fail(_ column: String, _ detail: String) -> ExchangeStoreError {
            .corrupt("exchanges rowid \(rowid), column \(column): \(detail)")
        }
        func json<T>(_ column: Int32, _ name: String, _ convert: (JSONValue) throws -> T) throws -> T? {
            guard let text = row.string(at: column) else { return nil }
            do {
                return try convert(try JSONValue.parse(text))
            } catch let error as ColumnError {
                throw fail(name, error.reason)
            } catch {
                throw fail(name, "\(error)")
            }
        }
        guard let idText = row.string(at: 1), let id = UUID(uuidString: idText) else {
            throw fail("id", "not a UUID")
        }
        let requestHeaders = try json(17, "request_headers", Self.headers) ?? HTTPHeaders()
        let requestBody = try body(
            info: json(19, "request_body", Self.bodyInfo), size: row.optionalInt64(at: 13),
            bodyID: row.optionalInt64(at: 15), fail: { fail("request_body_id", $0) })
        let request = CapturedRequest(
            method: row.string(at: 6) ?? "", url: row.string(at: 7) ?? "", headers: requestHeaders, body: requestBody)
        var response: CapturedResponse?
        if let status = row.optionalInt64(at: 8) {
            let headers = try json(18, "response_headers", Self.headers) ?? HTTPHeaders()
            let body = try body(
                info: json(20, "response_body", Self.bodyInfo), size: row.optionalInt64(at: 14),
                bodyID: row.optionalInt64(at: 16), fail: { fail("response_body_id", $0) })
            response = CapturedResponse(
                statusCode: Int(status), headers: headers, body: body, httpVersion: row.string(at: 21),
                url: row.string(at: 22))
        }
        var error: CaptureError?
        if let categoryText = row.string(at: 9) {
            guard let category = ErrorCategory(rawValue: categoryText) else {
                throw fail("error_category", "unknown category \"\(categoryText)\"")
            }
            error = CaptureError(
                category: category, domain: row.string(at: 10) ?? "", code: Int(row.int64(at: 11)),
                message: row.string(at: 12) ?? "")
        }
        guard let capturePath = CapturePath(rawValue: row.string(at: 24) ?? "") else {
            throw fail("capture_path", "unknown value")
        }
        guard let taskKind = TaskKind(rawValue: row.string(at: 25) ?? "") else {
            throw fail("task_kind", "unknown value")
        }
        return Exchange(
            id: id, sessionID: row.string(at: 2) ?? "",
            startedAt: Date(timeIntervalSinceReferenceDate: row.double(at: 4)),
            duration: row.optionalDouble(at: 5), request: request, response: response, error: error,
            redirects: try json(26, "redirects", Self.redirects) ?? [],
            metrics: try json(27, "metrics", Self.metrics),
            labels: try json(23, "labels", Self.labels) ?? [:],
            capturePath: capturePath, taskKind: taskKind,
            modifications: try json(28, "modifications", Self.modifications) ?? [])
    }

    // MARK: JSON columns (written by ExchangeRecord)

    private static func string(_ value: JSONValue?, _ field: String) throws -> String {
        guard let text = value?.stringValue else { throw ColumnError(reason: "\(field) is not a string") }
        return text
    }

    private static func optionalString(_ value: JSONValue?, _ field: String) throws -> String? {
        guard let value, value != .null else { return nil }
        return try string(value, field)
    }

    private static func headers(_ value: JSONValue) throws -> HTTPHeaders {
        guard let fields = value.arrayValue else { throw ColumnError(reason: "not an array") }
        return HTTPHeaders(
            try fields.enumerated().map { index, field in
                HTTPHeaderField(
                    name: try string(field["name"], "[\(index)].name"), value: try string(field["value"], "[\(index)].value"))
            })
    }

    private static func labels(_ value: JSONValue) throws -> [String: String] {
        guard let members = value.objectValue else { throw ColumnError(reason: "not an object") }
        var labels: [String: String] = [:]
        for (key, member) in members { labels[key] = try string(member, key) }
        return labels
    }

    private static func bodyInfo(_ value: JSONValue) throws -> BodyInfo {
        guard value.objectValue != nil else { throw ColumnError(reason: "not an object") }
        return BodyInfo(
            contentType: try optionalString(value["contentType"], "contentType"),
            truncated: value["truncated"]?.boolValue ?? false, redacted: value["redacted"]?.boolValue ?? false,
            unavailable: try optionalString(value["unavailable"], "unavailable"))
    }

    private static func redirects(_ value: JSONValue) throws -> [RedirectHop] {
        guard let hops = value.arrayValue else { throw ColumnError(reason: "not an array") }
        return try hops.enumerated().map { index, hop in
            // The status is null where the capture path could not see it (Linux URLProtocol path).
            let status = hop["statusCode"]?.int64Value.map { Int($0) }
            return RedirectHop(
                url: try string(hop["url"], "[\(index)].url"), statusCode: status,
                location: try string(hop["location"], "[\(index)].location"), followed: hop["followed"]?.boolValue ?? true)
        }
    }

    private static func modifications(_ value: JSONValue) throws -> [ExchangeModification] {
        guard let items = value.arrayValue else { throw ColumnError(reason: "not an array") }
        return try items.enumerated().map { index, item in
            ExchangeModification(
                rule: try string(item["rule"], "[\(index)].rule"), action: try string(item["action"], "[\(index)].action"),
                detail: try string(item["detail"], "[\(index)].detail"))
        }
    }

    private static func metrics(_ value: JSONValue) throws -> TimingMetrics {
        guard value.objectValue != nil else { throw ColumnError(reason: "not an object") }
        func date(_ key: String) throws -> Date? {
            guard let member = value[key], member != .null else { return nil }
            guard let seconds = member.doubleValue else { throw ColumnError(reason: "\(key) is not a number") }
            return Date(timeIntervalSinceReferenceDate: seconds)
        }
        func integer(_ key: String) throws -> Int64? {
            guard let member = value[key], member != .null else { return nil }
            guard let number = member.int64Value else { throw ColumnError(reason: "\(key) is not an integer") }
            return number
        }
        return TimingMetrics(
            fetchStart: try date("fetchStart"), domainLookupStart: try date("domainLookupStart"),
            domainLookupEnd: try date("domainLookupEnd"), connectStart: try date("connectStart"),
            connectEnd: try date("connectEnd"), secureConnectionStart: try date("secureConnectionStart"),
            secureConnectionEnd: try date("secureConnectionEnd"), requestStart: try date("requestStart"),
            requestEnd: try date("requestEnd"), responseStart: try date("responseStart"),
            responseEnd: try date("responseEnd"), remoteAddress: try optionalString(value["remoteAddress"], "remoteAddress"),
            remotePort: try integer("remotePort").map { Int($0) },
            isReusedConnection: value["isReusedConnection"]?.boolValue,
            networkProtocol: try optionalString(value["networkProtocol"], "networkProtocol"),
            bytesSent: try integer("bytesSent"), bytesReceived: try integer("bytesReceived"))
    }

    private func body(
        info: BodyInfo?, size: Int64?, bodyID: Int64?, fail: (String) -> ExchangeStoreError
    ) throws -> CapturedBody? {
        guard let info else { return nil }
        var data = Data()
        if includeBodies, let bodyID {
            let select = try db.cachedStatement("SELECT size, encoding, data FROM bodies WHERE id = ?")
            select.reset()
            defer { select.reset() }
            try select.bind(bodyID, at: 1)
            guard try select.step() else { throw fail("body \(bodyID) is missing from bodies") }
            do {
                data = try BodyRecord.decode(
                    encoding: select.string(at: 1) ?? "", data: select.data(at: 2) ?? Data(), size: select.int(at: 0))
            } catch {
                throw fail("body \(bodyID): \(error)")
            }
        }
        // Pass the stored size through as is: the initializer's default would fill in a nil one.
        var body = CapturedBody(
            data: data, size: size, contentType: info.contentType, isTruncated: info.truncated,
            isRedacted: info.redacted, unavailableReason: info.unavailable)
        body.size = size
        return body
    }
}
