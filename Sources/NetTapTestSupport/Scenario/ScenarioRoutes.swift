import Foundation
import NetTapCore
import NetTapServer

/// The handlers behind `ScenarioServer`. Each route answers exactly and deterministically;
/// bad parameters get a 400 that names the parameter.
enum ScenarioRoutes {
    /// Largest body a sizing route will produce (1 GiB), so a typo cannot exhaust memory.
    static let maxBodySize = 1 << 30
    static let streamSlice = 65_536

    static func router() -> HTTPRouter {
        var router = HTTPRouter()
        router.add(method: nil, "/status/:code", status)
        router.add(method: nil, "/echo", echo)
        router.add(method: nil, "/echo/raw", echoRaw)
        router.get("/bytes/:n", bytes)
        router.get("/chunked/:n", chunked)
        router.get("/gzip/:n", gzip)
        router.get("/text/:n", text)
        router.add(method: nil, "/redirect/:code", redirect)
        router.add(method: nil, "/redirect-chain/:n", redirectChain)
        router.add(method: nil, "/delay/:ms", delay)
        router.get("/slow-body/:n", slowBody)
        router.get("/auth/basic", basicAuth)
        router.get("/cookies/set", setCookies)
        router.get("/cookies", cookies)
        router.get("/cache/etag", entityTag)
        router.get("/headers", headers)
        router.add(method: nil, "/drop", drop)
        router.get("/json", json)
        return router
    }

    // MARK: - Parameters

    struct BasicAuthResult: Encodable {
        var authenticated: Bool
        var user: String
    }

    struct BadParameter: Error, CustomStringConvertible {
        var description: String
    }

    private static func integer(_ request: HTTPServerRequest, path name: String, in range: ClosedRange<Int>) throws -> Int {
        let raw = request.pathParameters[name] ?? ""
        guard let value = Int(raw), range.contains(value) else {
            throw BadParameter(description: "path parameter '\(name)' must be an integer in \(range.lowerBound)...\(range.upperBound), got '\(raw)'")
        }
        return value
    }

    private static func integer(_ request: HTTPServerRequest, query name: String, default fallback: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let raw = request.queryValue(name) else { return fallback }
        guard let value = Int(raw), range.contains(value) else {
            throw BadParameter(description: "query parameter '\(name)' must be an integer in \(range.lowerBound)...\(range.upperBound), got '\(raw)'")
        }
        return value
    }

    private static func seed(_ request: HTTPServerRequest) throws -> UInt64 {
        guard let raw = request.queryValue("seed") else { return 0 }
        guard let value = UInt64(raw) else {
            throw BadParameter(description: "query parameter 'seed' must be an unsigned integer, got '\(raw)'")
        }
        return value
    }

    /// Runs `body`, turning a bad parameter into a 400 that names it.
    private static func guarded(_ writer: HTTPResponseWriter, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let bad as BadParameter {
            try writer.respond(.text("400 Bad Request: \(bad.description)\n", status: 400))
        }
    }

    private static func jsonData<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(value)
    }

    // MARK: - Routes

    static func status(_ request: HTTPServerRequest, _ writer: HTTPResponseWriter) throws {
        try guarded(writer) {
            let code = try integer(request, path: "code", in: 100...599)
            if HTTPStatus.forbidsBody(code) {
                try writer.respond(status: code)
            } else {
                try writer.respond(.text("\(code) \(HTTPStatus.reasonPhrase(for: code))\n", status: code))
            }
        }
    }

    static func echo(_ request: HTTPServerRequest, _ writer: HTTPResponseWriter) throws {
        let payload = ScenarioEcho(
            method: request.method, path: request.path, query: request.query,
            queryItems: request.queryItems.map { ScenarioEcho.QueryItem(name: $0.name, value: $0.value) },
            headers: request.headers.fields, body: request.body.base64EncodedString(), bodySize: request.body.count)
        try writer.respond(.json(try jsonData(payload)))
    }

    static func echoRaw(_ request: HTTPServerRequest, _ writer: HTTPResponseWriter) throws {
        try writer.respond(status: 200, headers: ["Content-Type": "application/octet-stream"], body: request.body)
    }

    static func bytes(_ request: HTTPServerRequest, _ writer: HTTPResponseWriter) throws {
        try guarded(writer) {
            let count = try integer(request, path: "n", in: 0...maxBodySize)
            var stream = ScenarioBytes.Stream(seed: try seed(request))
            let headers: HTTPHeaders = ["Content-Type": "application/octet-stream"]
            if count <= streamSlice {
                try writer.respond(status: 200, headers: headers, body: stream.next(count))
                return
            }
            try writer.start(status: 200, headers: headers, contentLength: count)
            var remaining = count
            while remaining > 0 {
                let slice = min(streamSlice, remaining)
                try writer.write(stream.next(slice))
                remaining -= slice
            }
            try writer.end()
        }
    }

    static func chunked(_ request: HTTPServerRequest, _ writer: HTTPResponseWriter) throws {
        try guarded(writer) {
            let count = try integer(request, path: "n", in: 0...maxBodySize)
            var stream = ScenarioBytes.Stream(seed: try seed(request))
            // Several chunks even for small bodies: a quarter each, at most one stream slice.
            let chunkSize = max(1, min(streamSlice, (count + 3) / 4))
            try writer.startChunked(status: 200, headers: ["Content-Type": "application/octet-stream"])
            var remaining = count
            while remaining > 0 {
                let size = min(chunkSize, remaining)
                try writer.writeChunk(stream.next(size))
                remaining -= size
            }
            try writer.end()
        }
    }

    static func gzip(_ request: HTTPServerRequest, _ writer: HTTPResponseWriter) throws {
        try guarded(writer) {
            let count = try integer(request, path: "n", in: 0...(64 << 20))
            let response = HTTPServerResponse(
                status: 200, headers: ["Content-Type": "text/plain; charset=utf-8"], body: ScenarioBytes.text(count: count))
            try writer.respond(try response.gzipped())
        }
    }

    static func text(_ request: HTTPServerRequest, _ writer: HTTPResponseWriter) throws {
        try guarded(writer) {
            let count = try integer(request, path: "n", in: 0...(64 << 20))
            try writer.respond(status: 200, headers: ["Content-Type": "text/plain; charset=utf-8"],
                               body: ScenarioBytes.text(count: count))
        }
    }

    static func redirect(_ request: HTTPServerRequest, _ writer: HTTPResponseWriter) throws {
        try guarded(writer) {
            let code = try integer(request, path: "code", in: 300...399)
            guard [301, 302, 303, 307, 308].contains(code) else {
                throw BadParameter(description: "path parameter 'code' must be 301, 302, 303, 307 or 308, got \(code)")
            }
            let location = request.queryValue("to") ?? "/echo"
            var response = HTTPServerResponse.text("\(code) \(HTTPStatus.reasonPhrase(for: code)): \(location)\n", status: code)
            response.headers.add(name: "Location", value: location)
            try writer.respond(response)
        }
    }

    static func redirectChain(_ request: HTTPServerRequest, _ writer: HTTPResponseWriter) throws {
        try guarded(writer) {
            let hops = try integer(request, path: "n", in: 0...1_000)
            if hops == 0 {
                try writer.respond(.text("redirect chain complete\n"))
                return
            }
            var response = HTTPServerResponse.text("302 Found: \(hops - 1) hops left\n", status: 302)
            response.headers.add(name: "Location", value: "/redirect-chain/\(hops - 1)")
            try writer.respond(response)
        }
    }

    static func delay(_ request: HTTPServerRequest, _ writer: HTTPResponseWriter) throws {
        try guarded(writer) {
            let milliseconds = try integer(request, path: "ms", in: 0...600_000)
            guard writer.pause(milliseconds: milliseconds) else {
                writer.abort()  // the server is stopping
                return
            }
            try writer.respond(.text("delayed \(milliseconds) ms\n"))
        }
    }

    static func slowBody(_ request: HTTPServerRequest, _ writer: HTTPResponseWriter) throws {
        try guarded(writer) {
            let count = try integer(request, path: "n", in: 0...maxBodySize)
            let chunk = try integer(request, query: "chunk", default: 1_024, in: 1...(16 << 20))
            let interval = try integer(request, query: "interval_ms", default: 100, in: 0...60_000)
            var stream = ScenarioBytes.Stream(seed: try seed(request))
            try writer.start(status: 200, headers: ["Content-Type": "application/octet-stream"], contentLength: count)
            var remaining = count
            while remaining > 0 {
                let size = min(chunk, remaining)
                try writer.write(stream.next(size))
                remaining -= size
                guard remaining > 0 else { break }
                // Stop trickling as soon as the client is gone or the server stops.
                guard writer.pause(milliseconds: interval), writer.isClientConnected else {
                    writer.abort()
                    return
                }
            }
            try writer.end()
        }
    }

    static func basicAuth(_ request: HTTPServerRequest, _ writer: HTTPResponseWriter) throws {
        let user = request.queryValue("user") ?? "user"
        let password = request.queryValue("password") ?? "password"
        let expected = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        if request.headers["Authorization"] == expected {
            try writer.respond(.json(try jsonData(BasicAuthResult(authenticated: true, user: user))))
        } else {
            var response = HTTPServerResponse.text("401 Unauthorized\n", status: 401)
            // `challenge=none` leaves the challenge out: Linux URLSession never hands a challenged
            // 401 back to the caller (it hangs, cancels or traps, depending on the delegate).
            if request.queryValue("challenge") != "none" {
                response.headers.add(name: "WWW-Authenticate", value: "Basic realm=\"nettap\"")
            }
            try writer.respond(response)
        }
    }

    static func setCookies(_ request: HTTPServerRequest, _ writer: HTTPResponseWriter) throws {
        var response = HTTPServerResponse.json(Data())
        var set: [String: String] = [:]
        for item in request.queryItems {
            let value = item.value ?? ""
            response.headers.add(name: "Set-Cookie", value: "\(item.name)=\(value); Path=/")
            set[item.name] = value
        }
        response.body = try jsonData(["cookies": set])
        try writer.respond(response)
    }

    static func cookies(_ request: HTTPServerRequest, _ writer: HTTPResponseWriter) throws {
        var parsed: [String: String] = [:]
        for header in request.headers.values(for: "Cookie") {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = parts[0].trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty else { continue }
                parsed[name] = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            }
        }
        try writer.respond(.json(try jsonData(["cookies": parsed])))
    }

    static func entityTag(_ request: HTTPServerRequest, _ writer: HTTPResponseWriter) throws {
        let tag = ScenarioServer.entityTag
        let candidates = request.headers.values(for: "If-None-Match")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let headers: HTTPHeaders = ["ETag": tag, "Cache-Control": "no-cache"]
        if candidates.contains(tag) || candidates.contains("W/" + tag) || candidates.contains("*") {
            try writer.respond(status: 304, headers: headers)
        } else {
            var response = HTTPServerResponse.text("entity nettap-etag-v1\n")
            response.headers.add(name: "ETag", value: tag)
            response.headers.add(name: "Cache-Control", value: "no-cache")
            try writer.respond(response)
        }
    }

    static func headers(_ request: HTTPServerRequest, _ writer: HTTPResponseWriter) throws {
        var response = HTTPServerResponse.json(Data(#"{"headers":"custom"}"#.utf8))
        response.headers.add(name: "X-NetTap-Scenario", value: "headers")
        response.headers.add(name: "X-Mixed-Case-Header", value: "MixedValue")
        response.headers.add(name: "Set-Cookie", value: "first=1; Path=/")
        response.headers.add(name: "Set-Cookie", value: "second=2; Path=/; HttpOnly")
        response.headers.add(name: "Cache-Control", value: "no-store")
        try writer.respond(response)
    }

    static func drop(_ request: HTTPServerRequest, _ writer: HTTPResponseWriter) throws {
        writer.abort()
    }

    static func json(_ request: HTTPServerRequest, _ writer: HTTPResponseWriter) throws {
        try writer.respond(.json(ScenarioServer.sampleJSON))
    }
}
