import Foundation

/// Serves one accepted connection on its own worker thread: read a request, run the handler,
/// repeat while the connection stays persistent. Every way the client can go away ends the loop
/// quietly; every malformed request gets its 4xx/5xx answer and a close.
final class HTTPConnection {
    let descriptor: Int32
    let remoteAddress: HTTPServerRequest.RemoteAddress
    let stopSignal: StopSignal
    var date = HTTPDate()
    private let configuration: HTTPServer.Configuration
    private let handler: HTTPHandler

    init(descriptor: Int32, remoteAddress: HTTPServerRequest.RemoteAddress, configuration: HTTPServer.Configuration,
         handler: @escaping HTTPHandler, stopSignal: StopSignal) {
        self.descriptor = descriptor
        self.remoteAddress = remoteAddress
        self.configuration = configuration
        self.handler = handler
        self.stopSignal = stopSignal
    }

    func run() {
        let input = ConnectionInput(descriptor: descriptor)
        let limits = configuration.limits
        while !stopSignal.isRaised {
            var sawBytes = false
            let head: HTTPRequestHead
            let body: Data
            do throws(ConnectionInput.Interruption) {
                head = try input.readHead(limits: limits, sawBytes: &sawBytes)
                switch head.framing {
                case .none:
                    body = Data()
                case .length(let length):
                    try sendContinueIfExpected(head, input)
                    body = try input.readExactly(length)
                case .chunked:
                    try sendContinueIfExpected(head, input)
                    body = try input.readChunkedBody(maxBytes: limits.maxBodyBytes)
                }
            } catch {
                switch error {
                case .closed:
                    break
                case .timedOut:
                    if sawBytes { answerFailure(HTTPRequestFailure(status: 408, message: "request not received within \(configuration.idleTimeout) s")) }
                case .invalid(let failure):
                    answerFailure(failure)
                case .failed(let failure):
                    report("reading from \(remoteAddress): \(failure)")
                }
                return
            }

            let request = HTTPServerRequest(
                method: head.method, target: head.target, version: head.version, headers: head.headers,
                body: body, remoteAddress: remoteAddress)
            let writer = HTTPResponseWriter(descriptor: descriptor, connection: self, request: request)
            do {
                try handler(request, writer)
            } catch {
                if writer.isIdle && !writer.sendFailed {
                    try? writer.respond(.text("500 Internal Server Error: \(error)\n", status: 500))
                }
                if !writer.sendFailed { report("handler for \(request.method) \(request.target) threw: \(error)") }
            }
            if writer.isIdle {
                report("handler for \(request.method) \(request.target) returned without a response")
                writer.keepsConnectionOpen = false
                try? writer.respond(.text("500 Internal Server Error: the handler sent no response\n", status: 500))
            }
            if writer.hasStarted && !writer.isComplete && !writer.wasAborted && !writer.sendFailed {
                report("handler for \(request.method) \(request.target) returned without ending its response; closing")
            }
            guard writer.isComplete, writer.keepsConnectionOpen, !writer.sendFailed else { return }
        }
    }

    private func sendContinueIfExpected(_ head: HTTPRequestHead, _ input: ConnectionInput) throws(ConnectionInput.Interruption) {
        // A client that already started sending the body does not need the go-ahead.
        guard head.expectsContinue, input.bufferedCount == 0 else { return }
        let interim = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
        do {
            try interim.withUnsafeBytes { try SocketGlue.sendAll(descriptor, $0) }
        } catch {
            throw .closed
        }
    }

    /// Answers a request that could not be read, then closes gently: stop sending, read and
    /// discard what the client still sends for a moment, so that the close does not turn into a
    /// reset that would destroy the answer before the client reads it.
    private func answerFailure(_ failure: HTTPRequestFailure) {
        let reason = HTTPStatus.reasonPhrase(for: failure.status)
        let body = "\(failure.status) \(reason): \(failure.message)\n"
        let head = "HTTP/1.1 \(failure.status) \(reason)\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\nDate: \(date.current())\r\nConnection: close\r\n\r\n"
        let bytes = Array((head + body).utf8)
        do {
            try bytes.withUnsafeBytes { try SocketGlue.sendAll(descriptor, $0) }
        } catch {
            return
        }
        SocketGlue.shutdownWrite(descriptor)
        SocketGlue.setReceiveTimeout(descriptor, seconds: 1)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 16_384, alignment: 8)
        defer { scratch.deallocate() }
        var drained = 0
        while drained < 1_048_576, case .bytes(let count) = SocketGlue.receive(descriptor, into: scratch) {
            drained += count
        }
    }

    private func report(_ message: String) {
        configuration.diagnostics?(message)
    }
}
