import Foundation
import NetTapCore

/// Writes the answer to one request on the connection's worker thread.
///
/// Pick one shape per request:
/// - a whole response: `respond(status:headers:body:)` or `respond(_:)` (Content-Length is set for you);
/// - a chunked stream: `startChunked(status:headers:)`, then `writeChunk(_:)` any number of times, then `end()`;
/// - a fixed-length body in slices: `start(status:headers:contentLength:)`, `write(_:)` (pausing in between
///   with `pause(milliseconds:)` to trickle it), then `end()`;
/// - no answer at all, or a cut-off one: `abort()` (the connection closes when the handler returns).
///
/// Responses to HEAD keep their header fields (Content-Length included) and drop the body bytes.
/// Bodies of 1xx, 204 and 304 responses are never sent. A handler that throws before answering
/// gets a 500; one that throws mid-response has its connection closed, so the client sees the cut.
/// The writer belongs to its handler call: do not keep it after the handler returns.
public final class HTTPResponseWriter {
    private enum State: Equatable {
        case idle
        case fixed(remaining: Int)
        case chunked
        case untilClose
        case finished
        case aborted
    }

    private let descriptor: Int32
    private let connection: HTTPConnection
    private let isHead: Bool
    private let requestVersion: HTTPVersion
    private var state = State.idle
    private var sendsBody = true
    private var fixedLength = 0
    private(set) var sendFailed = false

    /// False once the connection will close after this exchange: the client asked for it, the handler
    /// set it, or the response framing needs it. Set it to false to close after the response.
    public var keepsConnectionOpen: Bool

    init(descriptor: Int32, connection: HTTPConnection, request: HTTPServerRequest) {
        self.descriptor = descriptor
        self.connection = connection
        self.isHead = request.method == "HEAD"
        self.requestVersion = request.version
        self.keepsConnectionOpen = !request.wantsClose
    }

    /// True once a status line has been sent (or the response was aborted).
    public var hasStarted: Bool { state != .idle }

    /// True when the response is complete and the connection may carry another request.
    var isComplete: Bool { state == .finished }
    var wasAborted: Bool { state == .aborted }
    var isIdle: Bool { state == .idle }

    /// Sends a whole response; Content-Length is set from `body` (and any Transfer-Encoding dropped).
    public func respond(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data()) throws {
        try requireIdle("respond")
        var headers = headers
        headers.remove(name: "Transfer-Encoding")
        if HTTPStatus.forbidsBody(status) {
            headers.remove(name: "Content-Length")
        } else {
            headers.set(name: "Content-Length", value: String(body.count))
        }
        if (100..<200).contains(status) { keepsConnectionOpen = false }
        let head = try serializeHead(status: status, headers: headers)
        state = .finished
        let includeBody = !isHead && !HTTPStatus.forbidsBody(status) && !body.isEmpty
        if includeBody && body.count <= 32_768 {
            var bytes = head
            bytes.append(contentsOf: body)
            try send(bytes)
        } else {
            try send(head)
            if includeBody { try send(body) }
        }
    }

    /// Sends a whole response value.
    public func respond(_ response: HTTPServerResponse) throws {
        try respond(status: response.status, headers: response.headers, body: response.body)
    }

    /// Starts a `Transfer-Encoding: chunked` response. To an HTTP/1.0 client the body is sent
    /// unframed and ended by closing the connection, since 1.0 has no chunked coding.
    public func startChunked(status: Int, headers: HTTPHeaders = HTTPHeaders()) throws {
        try requireIdle("startChunked")
        var headers = headers
        headers.remove(name: "Content-Length")
        if requestVersion == .http1_0 {
            headers.remove(name: "Transfer-Encoding")
            keepsConnectionOpen = false
            state = .untilClose
        } else {
            headers.set(name: "Transfer-Encoding", value: "chunked")
            state = .chunked
        }
        sendsBody = !isHead && !HTTPStatus.forbidsBody(status)
        try send(try serializeHead(status: status, headers: headers))
    }

    /// Starts a response whose body of exactly `contentLength` bytes follows in `write(_:)` calls.
    public func start(status: Int, headers: HTTPHeaders = HTTPHeaders(), contentLength: Int) throws {
        try requireIdle("start")
        guard contentLength >= 0 else { throw HTTPServerError.responseState("negative Content-Length \(contentLength)") }
        var headers = headers
        headers.remove(name: "Transfer-Encoding")
        headers.set(name: "Content-Length", value: String(contentLength))
        fixedLength = contentLength
        state = .fixed(remaining: contentLength)
        sendsBody = !isHead && !HTTPStatus.forbidsBody(status)
        try send(try serializeHead(status: status, headers: headers))
    }

    /// Writes the next piece of a streamed body: one chunk of a chunked response, or the next
    /// slice of a fixed-length one. Empty data writes nothing.
    public func write(_ data: Data) throws {
        switch state {
        case .fixed(let remaining):
            guard data.count <= remaining else {
                throw HTTPServerError.bodyLengthMismatch(expected: fixedLength, written: fixedLength - remaining + data.count)
            }
            state = .fixed(remaining: remaining - data.count)
            if sendsBody && !data.isEmpty { try send(data) }
        case .chunked:
            guard sendsBody && !data.isEmpty else { return }
            var frame = Array(String(data.count, radix: 16).utf8)
            frame.append(contentsOf: crlf)
            if data.count <= 32_768 {
                frame.append(contentsOf: data)
                frame.append(contentsOf: crlf)
                try send(frame)
            } else {
                try send(frame)
                try send(data)
                try send(crlf)
            }
        case .untilClose:
            if sendsBody && !data.isEmpty { try send(data) }
        case .idle:
            throw HTTPServerError.responseState("write before start or startChunked")
        case .finished, .aborted:
            throw HTTPServerError.responseState("write after the response ended")
        }
    }

    /// Same as `write(_:)`; reads better for chunked responses.
    public func writeChunk(_ data: Data) throws {
        try write(data)
    }

    /// Ends a streamed response: the last chunk for chunked, a length check for fixed-length.
    /// A fixed-length body that is short is an error and its connection is closed.
    public func end() throws {
        switch state {
        case .fixed(let remaining):
            guard remaining == 0 else {
                state = .aborted
                keepsConnectionOpen = false
                throw HTTPServerError.bodyLengthMismatch(expected: fixedLength, written: fixedLength - remaining)
            }
            state = .finished
        case .chunked:
            state = .finished
            if sendsBody { try send(Array("0\r\n\r\n".utf8)) }
        case .untilClose:
            state = .finished
        case .idle:
            throw HTTPServerError.responseState("end before start or startChunked")
        case .finished, .aborted:
            return
        }
    }

    /// Gives up on this exchange: nothing more is sent and the connection closes when the handler
    /// returns, with or without a partial response. With `reset` the close is a TCP reset (RST)
    /// instead of an orderly FIN, to simulate a crashed server or middlebox.
    public func abort(reset: Bool = false) {
        state = .aborted
        keepsConnectionOpen = false
        if reset { SocketGlue.setResetOnClose(descriptor) }
    }

    /// False once the client has closed or reset its side. Cheap: it peeks at the socket.
    public var isClientConnected: Bool {
        !SocketGlue.peerHasClosed(descriptor)
    }

    /// Waits up to `milliseconds`, returning early (false) when the server is stopping.
    /// Use it to delay or trickle a response without holding up `HTTPServer.stop()`.
    @discardableResult
    public func pause(milliseconds: Int) -> Bool {
        connection.stopSignal.wait(seconds: Double(milliseconds) / 1_000)
    }

    // MARK: - Wire

    private func requireIdle(_ operation: String) throws {
        guard state == .idle else {
            throw HTTPServerError.responseState("\(operation) after the response had started")
        }
    }

    private func serializeHead(status: Int, headers: HTTPHeaders) throws -> [UInt8] {
        guard (100...999).contains(status) else { throw HTTPServerError.responseState("status \(status) is not three digits") }
        var headers = headers
        var closing = !keepsConnectionOpen || connection.stopSignal.isRaised
        for value in headers.values(for: "Connection") where value.lowercased().contains("close") { closing = true }
        if closing {
            keepsConnectionOpen = false
            headers.set(name: "Connection", value: "close")
        } else if requestVersion == .http1_0 && !headers.contains("Connection") {
            headers.add(name: "Connection", value: "keep-alive")
        }

        var bytes: [UInt8] = []
        bytes.reserveCapacity(160 + headers.count * 40)
        bytes.append(contentsOf: "HTTP/1.1 \(status) \(HTTPStatus.reasonPhrase(for: status))\r\n".utf8)
        for field in headers {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(HTTPRequestHead.isTokenByte) else {
                throw HTTPServerError.responseState("invalid header name '\(field.name)'")
            }
            guard !field.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw HTTPServerError.responseState("header '\(field.name)' has CR, LF or NUL in its value")
            }
            bytes.append(contentsOf: field.name.utf8)
            bytes.append(contentsOf: ": ".utf8)
            bytes.append(contentsOf: field.value.utf8)
            bytes.append(contentsOf: crlf)
        }
        if !headers.contains("Date") {
            bytes.append(contentsOf: "Date: \(connection.date.current())\r\n".utf8)
        }
        bytes.append(contentsOf: crlf)
        return bytes
    }

    private func send(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try sendRaw($0) }
    }

    private func send(_ data: Data) throws {
        try data.withUnsafeBytes { try sendRaw($0) }
    }

    /// A failed send leaves the framing broken, so the connection must close even if the
    /// handler swallows the error.
    private func sendRaw(_ bytes: UnsafeRawBufferPointer) throws {
        do {
            try SocketGlue.sendAll(descriptor, bytes)
        } catch {
            sendFailed = true
            keepsConnectionOpen = false
            throw error
        }
    }
}

private let crlf: [UInt8] = [0x0D, 0x0A]
