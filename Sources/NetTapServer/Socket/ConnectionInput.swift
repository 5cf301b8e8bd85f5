import Foundation

/// Buffered reading from one connection's socket. Bytes beyond the current request stay
/// buffered for the next one, which is what makes pipelined requests work.
final class ConnectionInput {
    /// Why reading stopped short.
    enum Interruption: Error {
        /// The peer closed (or reset) the connection.
        case closed
        /// Nothing arrived within the idle timeout.
        case timedOut
        /// The request broke a rule; answer with the failure's status.
        case invalid(HTTPRequestFailure)
        case failed(HTTPServerError)
    }

    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 8)

    init(descriptor: Int32) {
        self.descriptor = descriptor
        buffer.reserveCapacity(65_536)
    }

    deinit {
        scratch.deallocate()
    }

    /// Bytes received but not consumed yet.
    var bufferedCount: Int { buffer.count - start }

    /// Receives once more, appending to the buffer.
    private func fill() throws(Interruption) {
        switch SocketGlue.receive(descriptor, into: scratch) {
        case .bytes(let count):
            if start > 0 && start == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                start = 0
            } else if start >= 65_536 {
                buffer.removeFirst(start)
                start = 0
            }
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
        case .closed, .reset: throw .closed
        case .timedOut: throw .timedOut
        case .failed(let error): throw .failed(error)
        }
    }

    private func consume(_ count: Int) {
        start += count
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
    }

    /// Reads a request head (up to and including the empty line) and parses it. Empty lines before
    /// a request line are skipped, as RFC 9112 asks. `sawBytes` tells the caller whether any part
    /// of a request had arrived, to tell an idle close from a truncated request.
    func readHead(limits: HTTPServer.Limits, sawBytes: inout Bool) throws(Interruption) -> HTTPRequestHead {
        var scanned = 0
        while true {
            // Skip leading CR/LF left over between requests.
            while start < buffer.count, buffer[start] == 0x0D || buffer[start] == 0x0A { consume(1) }
            if bufferedCount > 0 { sawBytes = true }
            if let end = headEnd(from: scanned) {
                let headLength = end.head
                guard headLength <= limits.maxHeaderBytes else { throw .invalid(oversize(limits)) }
                let result: Result<HTTPRequestHead, HTTPRequestFailure> = buffer.withUnsafeBufferPointer { all in
                    let slice = UnsafeBufferPointer(rebasing: all[start..<(start + headLength)])
                    do throws(HTTPRequestFailure) {
                        return .success(try HTTPRequestHead.parse(slice, limits: limits))
                    } catch {
                        return .failure(error)
                    }
                }
                consume(end.total)
                switch result {
                case .success(let head): return head
                case .failure(let failure): throw .invalid(failure)
                }
            }
            scanned = max(0, bufferedCount - 3)
            if bufferedCount > limits.maxHeaderBytes { throw .invalid(oversize(limits)) }
            try fill()
        }
    }

    /// 414 when the request line alone breaks the limit, else 431 for the head as a whole.
    private func oversize(_ limits: HTTPServer.Limits) -> HTTPRequestFailure {
        let lineEnd = buffer[start...].firstIndex(of: 0x0A) ?? buffer.count
        if lineEnd - start > limits.maxHeaderBytes {
            return HTTPRequestFailure(status: 414, message: "request line longer than \(limits.maxHeaderBytes) bytes")
        }
        return HTTPRequestFailure(status: 431, message: "request head larger than \(limits.maxHeaderBytes) bytes")
    }

    /// Finds the blank line ending a head: LF followed by LF or CRLF. Returns the head length
    /// (excluding the blank line) and the total bytes to consume.
    private func headEnd(from offset: Int) -> (head: Int, total: Int)? {
        buffer.withUnsafeBufferPointer { all in
            var index = start + offset
            let end = all.count
            while index < end {
                if all[index] == 0x0A {
                    if index + 1 < end, all[index + 1] == 0x0A {
                        return (index + 1 - start, index + 2 - start)
                    }
                    if index + 2 < end, all[index + 1] == 0x0D, all[index + 2] == 0x0A {
                        return (index + 1 - start, index + 3 - start)
                    }
                }
                index += 1
            }
            return nil
        }
    }

    /// Reads exactly `count` body bytes.
    func readExactly(_ count: Int) throws(Interruption) -> Data {
        while bufferedCount < count { try fill() }
        let data = Data(buffer[start..<(start + count)])
        consume(count)
        return data
    }

    /// Reads one line (without its CRLF or LF) of at most `limit` bytes, for chunk framing.
    func readLine(limit: Int, what: String) throws(Interruption) -> [UInt8] {
        var scanned = 0
        while true {
            if let newline = buffer[(start + scanned)...].firstIndex(of: 0x0A) {
                var end = newline
                if end > start, buffer[end - 1] == 0x0D { end -= 1 }
                let line = Array(buffer[start..<end])
                consume(newline + 1 - start)
                return line
            }
            scanned = bufferedCount
            if bufferedCount > limit { throw .invalid(.badRequest("\(what) longer than \(limit) bytes")) }
            try fill()
        }
    }

    /// Reads a chunked body (RFC 9112 §7.1), discarding extensions and trailer fields.
    func readChunkedBody(maxBytes: Int) throws(Interruption) -> Data {
        var body = Data()
        var chunkIndex = 0
        while true {
            let line = try readLine(limit: 4_096, what: "chunk size line \(chunkIndex)")
            let sizeBytes = line.prefix { $0 != UInt8(ascii: ";") }
                .drop { $0 == 0x20 || $0 == 0x09 }
            let trimmed = sizeBytes.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
            guard !trimmed.isEmpty, trimmed.count <= 15,
                  let size = Int(String(decoding: trimmed, as: UTF8.self), radix: 16) else {
                throw .invalid(.badRequest("chunk \(chunkIndex): invalid size line '\(String(decoding: line.prefix(40), as: UTF8.self))'"))
            }
            if size == 0 { break }
            guard body.count + size <= maxBytes else {
                throw .invalid(HTTPRequestFailure(status: 413, message: "chunked body exceeds the body limit of \(maxBytes) bytes"))
            }
            body.append(try readExactly(size))
            var terminator = try readExactly(1)
            if terminator.first == 0x0D { terminator = try readExactly(1) }
            guard terminator.first == 0x0A else {
                throw .invalid(.badRequest("chunk \(chunkIndex): data is longer than its size \(size)"))
            }
            chunkIndex += 1
        }
        // Trailer section: fields until an empty line, bounded like a head.
        var trailerBytes = 0
        while true {
            let line = try readLine(limit: 8_192, what: "trailer field")
            if line.isEmpty { return body }
            trailerBytes += line.count
            if trailerBytes > 8_192 {
                throw .invalid(HTTPRequestFailure(status: 431, message: "trailer section larger than 8192 bytes"))
            }
        }
    }
}
