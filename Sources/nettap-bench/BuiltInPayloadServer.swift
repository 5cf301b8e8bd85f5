import Foundation

/// Placeholder for the built-in server fallback; replaced when NetTapServer lands.
final class BuiltInPayloadServer: @unchecked Sendable {
    let url: URL
    init(payload: Data) throws { throw BenchError("nginx is not installed and the built-in server is not available yet") }
    func stop() {}
}
