import Foundation
import NetTapCore

/// Turns rows of `exchanges` (selected with `StoreSchema.exchangeColumns`) back into the exact
/// `Exchange` values that were stored. Used on the store's queue.
struct ExchangeRowReader {
    let db: Database
    let includeBodies: Bool
    private let decoder = JSONDecoder()

    init(db: Database, includeBodies: Bool) {
        self.db = db
        self.includeBodies = includeBodies
    }

    /// The body descriptor column: everything but bytes and size.
    private struct BodyInfo: Decodable {
        var contentType: String?
        var truncated: Bool?
        var redacted: Bool?
        var unavailable: String?
    }

    func exchange(from row: Statement) throws -> Exchange {
        let rowid = row.int64(at: 0)
        func fail(_ column: String, _ detail: String) -> ExchangeStoreError {
            .corrupt("exchanges rowid \(rowid), column \(column): \(detail)")
        }
        func decode<T: Decodable>(_ type: T.Type, _ column: Int32, _ name: String) throws -> T? {
            guard let text = row.string(at: column) else { return nil }
            do {
                return try decoder.decode(T.self, from: Data(text.utf8))
            } catch {
                throw fail(name, "\(error)")
            }
        }
        guard let idText = row.string(at: 1), let id = UUID(uuidString: idText) else {
            throw fail("id", "not a UUID")
        }
        let requestHeaders = try decode([HTTPHeaderField].self, 17, "request_headers") ?? []
        let requestBody = try body(
            info: decode(BodyInfo.self, 19, "request_body"), size: row.optionalInt64(at: 13),
            bodyID: row.optionalInt64(at: 15), fail: { fail("request_body_id", $0) })
        let request = CapturedRequest(
            method: row.string(at: 6) ?? "", url: row.string(at: 7) ?? "",
            headers: HTTPHeaders(requestHeaders), body: requestBody)
        var response: CapturedResponse?
        if let status = row.optionalInt64(at: 8) {
            let headers = try decode([HTTPHeaderField].self, 18, "response_headers") ?? []
            let body = try body(
                info: decode(BodyInfo.self, 20, "response_body"), size: row.optionalInt64(at: 14),
                bodyID: row.optionalInt64(at: 16), fail: { fail("response_body_id", $0) })
            response = CapturedResponse(
                statusCode: Int(status), headers: HTTPHeaders(headers), body: body,
                httpVersion: row.string(at: 21), url: row.string(at: 22))
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
            redirects: try decode([RedirectHop].self, 26, "redirects") ?? [],
            metrics: try decode(TimingMetrics.self, 27, "metrics"),
            labels: try decode([String: String].self, 23, "labels") ?? [:],
            capturePath: capturePath, taskKind: taskKind,
            modifications: try decode([ExchangeModification].self, 28, "modifications") ?? [])
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
            data: data, size: size, contentType: info.contentType, isTruncated: info.truncated ?? false,
            isRedacted: info.redacted ?? false, unavailableReason: info.unavailable)
        body.size = size
        return body
    }
}
