import Foundation
import NetTapCore

/// A whole response as a value: status, header fields and body. Hand it to
/// `HTTPResponseWriter.respond(_:)`; Content-Length is added when it is written.
///
/// ```swift
/// try writer.respond(.text("hello\n"))
/// try writer.respond(.json(data, status: 201))
/// try writer.respond(try .text(largeText).gzipped())
/// ```
public struct HTTPServerResponse: Sendable, Equatable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: Data

    public init(status: Int = 200, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A `text/plain; charset=utf-8` response.
    public static func text(_ text: String, status: Int = 200) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Data(text.utf8))
    }

    /// An `application/json` response with an already encoded body.
    public static func json(_ body: Data, status: Int = 200) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// The same response with its body gzip-compressed and `Content-Encoding: gzip` set.
    public func gzipped(level: Int32 = -1) throws -> HTTPServerResponse {
        var copy = self
        copy.body = try Gzip.compress(body, level: level)
        copy.headers.set(name: "Content-Encoding", value: "gzip")
        return copy
    }
}
