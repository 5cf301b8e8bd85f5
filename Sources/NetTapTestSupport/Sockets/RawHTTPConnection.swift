import Foundation
import NetTapCore
import NetTapServer

/// A raw TCP client for tests that must control the exact bytes: keep-alive and pipelining,
/// malformed requests, disconnects at chosen moments. It parses responses just enough to check
/// them (status, ordered header fields, Content-Length, chunked or close-delimited bodies).
///
/// ```swift
/// let connection = try RawHTTPConnection(port: server.port)
/// try connection.send("GET /text/10 HTTP/1.1\r\nHost: x\r\n\r\n")
/// let response = try connection.readResponse()
/// #expect(response.status == 200 && response.body.count == 10)
/// ```
///
/// Every read is bounded by `timeout`; a read that runs out of time throws, naming what it waited for.
public final class RawHTTPConnection {
    /// A socket or protocol failure, with what was going on.
    public struct Failure: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// One parsed response.
    public struct Response: Sendable {
        public var status: Int
        public var reason: String
        /// The version token of the status line, e.g. `HTTP/1.1`.
        public var version: String
        public var headers: HTTPHeaders
        /// The body, de-chunked if it was chunked.
        public var body: Data
        /// True when the body came with `Transfer-Encoding: chunked`.
        public var wasChunked: Bool
        /// How many chunks carried the body (0 when not chunked).
        public var chunkCount: Int
    }

    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var closed = false
    public let timeout: Double
    /// True once a read ended with a TCP reset rather than an orderly close.
    public private(set) var sawReset = false

    /// Connects to `host` (numeric, `127.0.0.1` or `::1`) and `port`; reads wait at most `timeout` seconds.
    public init(host: String = "127.0.0.1", port: Int, timeout: Double = 10) throws {
        do {
            descriptor = try SocketGlue.connect(host: host, port: port)
        } catch {
            throw Failure(message: "\(error)")
        }
        self.timeout = timeout
        SocketGlue.setReceiveTimeout(descriptor, seconds: timeout)
    }

    deinit {
        if !closed { SocketGlue.closeDescriptor(descriptor) }
    }

    public func send(_ text: String) throws {
        try send(Data(text.utf8))
    }

    public func send(_ data: Data) throws {
        do {
            try data.withUnsafeBytes { try SocketGlue.sendAll(descriptor, $0) }
        } catch {
            throw Failure(message: "sending \(data.count) bytes: \(error)")
        }
    }

    /// Half-closes: the server sees end of input, and can still answer.
    public func shutdownWrite() {
        SocketGlue.shutdownWrite(descriptor)
    }

    /// Closes the socket; with `reset` the server sees a TCP reset instead of an orderly close.
    public func close(reset: Bool = false) {
        guard !closed else { return }
        if reset { SocketGlue.setResetOnClose(descriptor) }
        SocketGlue.closeDescriptor(descriptor)
        closed = true
    }

    /// Reads one response. Interim 1xx responses are returned like any other (read again for the
    /// final one). Pass the request's method so that a HEAD response is read without a body.
    public func readResponse(requestMethod: String = "GET") throws -> Response {
        let headEnd = try readUntil(what: "a response head") { buffer in
            Self.find([0x0D, 0x0A, 0x0D, 0x0A], in: buffer).map { $0 + 4 }
        }
        let head = String(decoding: buffer[0..<(headEnd - 4)], as: UTF8.self)
        buffer.removeFirst(headEnd)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, let status = Int(parts[1]) else {
            throw Failure(message: "malformed status line '\(statusLine)'")
        }
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw Failure(message: "malformed header line '\(line)'") }
            headers.add(name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = Response(status: status, reason: parts.count > 2 ? String(parts[2]) : "", version: String(parts[0]),
                                headers: headers, body: Data(), wasChunked: false, chunkCount: 0)
        if requestMethod == "HEAD" || (100..<200).contains(status) || status == 204 || status == 304 {
            return response
        }
        if headers["Transfer-Encoding"]?.lowercased().contains("chunked") == true {
            response.wasChunked = true
            (response.body, response.chunkCount) = try readChunkedBody()
        } else if let lengthText = headers["Content-Length"] {
            guard let length = Int(lengthText) else { throw Failure(message: "bad Content-Length '\(lengthText)'") }
            response.body = try readExactly(length, what: "a \(length)-byte body")
        } else {
            response.body = try readUntilClose()
        }
        return response
    }

    /// Every byte until the server closes the connection.
    public func readUntilClose() throws -> Data {
        while try fill(what: "the server to close the connection") {}
        defer { buffer.removeAll() }
        return Data(buffer)
    }

    /// Waits for the server to close (or reset) the connection, discarding any bytes. Returns the
    /// number of bytes discarded; throws if the connection is still open after `timeout`.
    @discardableResult
    public func waitForClose() throws -> Int {
        var discarded = buffer.count
        buffer.removeAll()
        while try fill(what: "the server to close the connection") {
            discarded += buffer.count
            buffer.removeAll()
        }
        return discarded
    }

    /// Reads at least `count` bytes (more may arrive and stay buffered for the next read).
    public func readExactly(_ count: Int, what: String) throws -> Data {
        _ = try readUntil(what: what) { $0.count >= count ? count : nil }
        defer { buffer.removeFirst(count) }
        return Data(buffer[0..<count])
    }

    private func readChunkedBody() throws -> (Data, Int) {
        var body = Data()
        var chunks = 0
        while true {
            let lineEnd = try readUntil(what: "a chunk size line") { Self.find([0x0D, 0x0A], in: $0) }
            let line = String(decoding: buffer[0..<lineEnd], as: UTF8.self)
            buffer.removeFirst(lineEnd + 2)
            let sizeText = line.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard let size = Int(sizeText, radix: 16) else { throw Failure(message: "bad chunk size line '\(line)'") }
            if size == 0 {
                // Skip trailer fields up to the empty line.
                while true {
                    let end = try readUntil(what: "the chunked trailer") { Self.find([0x0D, 0x0A], in: $0) }
                    buffer.removeFirst(end + 2)
                    if end == 0 { return (body, chunks) }
                }
            }
            body.append(try readExactly(size, what: "a \(size)-byte chunk"))
            let crlf = try readExactly(2, what: "a chunk terminator")
            guard crlf == Data([0x0D, 0x0A]) else { throw Failure(message: "chunk \(chunks) not followed by CRLF") }
            chunks += 1
        }
    }

    /// Receives until `ready` returns a position, or throws on timeout or a premature close.
    private func readUntil(what: String, _ ready: ([UInt8]) -> Int?) throws -> Int {
        while true {
            if let position = ready(buffer) { return position }
            guard try fill(what: what) else {
                throw Failure(message: "connection closed while waiting for \(what) (\(buffer.count) bytes buffered)")
            }
        }
    }

    /// Receives once; false at end of input (orderly close or reset).
    private func fill(what: String) throws -> Bool {
        var scratch = [UInt8](repeating: 0, count: 65_536)
        let result = scratch.withUnsafeMutableBytes { SocketGlue.receive(descriptor, into: $0) }
        switch result {
        case .bytes(let count):
            buffer.append(contentsOf: scratch[0..<count])
            return true
        case .closed:
            return false
        case .reset:
            sawReset = true
            return false
        case .timedOut:
            throw Failure(message: "timed out after \(timeout) s waiting for \(what)")
        case .failed(let error):
            throw Failure(message: "receiving \(what): \(error)")
        }
    }

    private static func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        search: for start in 0...(bytes.count - pattern.count) {
            for offset in 0..<pattern.count where bytes[start + offset] != pattern[offset] { continue search }
            return start
        }
        return nil
    }
}
