import Foundation
import NetTapTestSupport
import Testing

/// A hand-made exchange in the public exchange JSON contract (docs/exchange-json.md), for stores
/// whose every field a test must know: times, labels, sessions, errors, body flags. A store of
/// them is made the way a user makes one, with `nettap import FILE.ndjson`.
struct SampleExchange {
    struct Body {
        var text: String
        var size: Int?
        var contentType: String?
        var truncated = false
        var redacted = false
        var unavailable: String?
        /// Base64 `text` stands for bytes that are not UTF-8.
        var isBase64 = false

        func json() -> [String: Any] {
            var body: [String: Any] = [
                "size": size.map { $0 as Any } ?? NSNull(), "truncated": truncated, "redacted": redacted,
                "encoding": isBase64 ? "base64" : "utf8", "data": text,
            ]
            if let contentType { body["contentType"] = contentType }
            if let unavailable { body["unavailable"] = unavailable }
            return body
        }
    }

    var id: String
    var sessionID = "session-A"
    var startedAt: Date
    var duration: Double? = 0.05
    var method = "GET"
    var url: String
    /// nil: no response (then `error` says why).
    var status: Int? = 200
    var error: String?
    var labels: [String: String] = [:]
    var capturePath = "session"
    var requestHeaders: [(String, String)] = []
    var responseHeaders: [(String, String)] = [("Content-Type", "text/plain")]
    var requestBody: Body?
    var responseBody: Body? = Body(text: "ok\n", size: 3, contentType: "text/plain")

    /// `00000000-0000-4000-8000-0000000000NN`: IDs a test can name.
    static func id(_ number: Int, prefix: String = "00000000") -> String {
        prefix + String(format: "-0000-4000-8000-%012d", number)
    }

    func json() -> [String: Any] {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        func headers(_ fields: [(String, String)]) -> [[String: String]] {
            fields.map { ["name": $0.0, "value": $0.1] }
        }
        var object: [String: Any] = [
            "id": id, "sessionId": sessionID, "startedAt": formatter.string(from: startedAt),
            "duration": duration.map { $0 as Any } ?? NSNull(),
            "request": [
                "method": method, "url": url, "headers": headers(requestHeaders),
                "body": requestBody.map { $0.json() as Any } ?? NSNull(),
            ] as [String: Any],
            "labels": labels, "capturePath": capturePath, "taskKind": "data", "redirects": [], "modifications": [],
        ]
        if let status {
            object["response"] = [
                "status": status, "headers": headers(responseHeaders),
                "body": responseBody.map { $0.json() as Any } ?? NSNull(),
            ] as [String: Any]
        } else {
            object["response"] = NSNull()
        }
        if let error {
            object["error"] = ["category": error, "domain": "NSURLErrorDomain", "code": -1, "message": "failed: \(error)"]
        } else {
            object["error"] = NSNull()
        }
        return object
    }

    /// One exchange JSON per line.
    static func ndjson(_ exchanges: [SampleExchange]) throws -> Data {
        var data = Data()
        for exchange in exchanges {
            data += try JSONSerialization.data(withJSONObject: exchange.json(), options: [.sortedKeys])
            data += Data("\n".utf8)
        }
        return data
    }

    /// A store in `directory` holding exactly `exchanges`, imported with `nettap import`.
    static func store(_ exchanges: [SampleExchange], in directory: TemporaryDirectory, name: String = "sample.sqlite",
                      sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let file = directory.file(name + ".ndjson")
        try ndjson(exchanges).write(to: file)
        let path = directory.file(name).path
        let result = try Nettap.succeed(["import", "--store", path, file.path], sourceLocation: sourceLocation)
        let noun = exchanges.count == 1 ? "exchange" : "exchanges"
        #expect(result.stdout == "Imported \(exchanges.count) \(noun) from \(file.path) into \(path).",
                sourceLocation: sourceLocation)
        return path
    }
}
