/// Which NetTap mechanism saw an exchange.
public enum CapturePath: String, Sendable, Hashable, Codable, CaseIterable {
    /// The URLProtocol interceptor (`NetTap.enable(on:)`, `NetTap.registerGlobally()`).
    case urlProtocol = "protocol"
    /// The instrumented session (`NetTapSession`).
    case session
    /// Read from a file (HAR, NDJSON), not captured live.
    case imported = "import"
}

/// Which kind of URLSession task carried an exchange.
public enum TaskKind: String, Sendable, Hashable, Codable {
    case data, upload, download, other
}
