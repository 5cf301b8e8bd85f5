import Foundation

extension HTTPServer {
    /// Where to listen and how patient and generous to be. The defaults suit loopback tools and tests.
    public struct Configuration: Sendable {
        /// A numeric address (`127.0.0.1`, `::1`, `0.0.0.0`, `::`) or a name that resolves locally.
        public var host: String
        /// 0 picks a free ephemeral port; read it from `HTTPServer.port` after `start()`.
        public var port: Int
        public var limits: Limits
        /// Seconds a connection may stay silent, between requests or inside one, before it is closed.
        public var idleTimeout: Double
        /// Seconds a send may block on a client that does not read, before the connection is dropped.
        public var sendTimeout: Double
        /// Seconds `stop()` waits for worker threads to end.
        public var stopTimeout: Double
        public var listenBacklog: Int32
        /// Receives one line for each notable problem: handler errors, accept failures.
        public var diagnostics: (@Sendable (String) -> Void)?

        public init(
            host: String = "127.0.0.1", port: Int = 0, limits: Limits = Limits(), idleTimeout: Double = 30,
            sendTimeout: Double = 30, stopTimeout: Double = 5, listenBacklog: Int32 = 512,
            diagnostics: (@Sendable (String) -> Void)? = nil
        ) {
            self.host = host
            self.port = port
            self.limits = limits
            self.idleTimeout = idleTimeout
            self.sendTimeout = sendTimeout
            self.stopTimeout = stopTimeout
            self.listenBacklog = listenBacklog
            self.diagnostics = diagnostics
        }
    }

    /// Bounds on what one client may send or hold. Breaking one is answered with 413, 414 or 431
    /// (or 503 for connections), and the connection is closed.
    public struct Limits: Sendable, Equatable {
        /// Request line plus header fields, in bytes (431, or 414 when the request line alone is too long).
        public var maxHeaderBytes: Int
        /// Number of header fields (431).
        public var maxHeaderCount: Int
        /// Decoded request body, in bytes (413).
        public var maxBodyBytes: Int
        /// Open connections; one more is answered 503 and closed.
        public var maxConnections: Int

        public init(maxHeaderBytes: Int = 32_768, maxHeaderCount: Int = 100, maxBodyBytes: Int = 16 << 20,
                    maxConnections: Int = 512) {
            self.maxHeaderBytes = maxHeaderBytes
            self.maxHeaderCount = maxHeaderCount
            self.maxBodyBytes = maxBodyBytes
            self.maxConnections = maxConnections
        }
    }
}
