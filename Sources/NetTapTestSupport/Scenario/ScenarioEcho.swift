import Foundation
import NetTapCore

/// The JSON document `/echo` answers with: what the scenario server received.
///
/// ```swift
/// let (data, _) = try await session.data(for: request)
/// let echo = try JSONDecoder().decode(ScenarioEcho.self, from: data)
/// #expect(echo.method == "POST" && echo.bodyData == payload)
/// ```
public struct ScenarioEcho: Codable, Sendable, Equatable {
    public struct QueryItem: Codable, Sendable, Equatable {
        public var name: String
        public var value: String?

        public init(name: String, value: String?) {
            self.name = name
            self.value = value
        }
    }

    public var method: String
    /// The path as sent, still percent-encoded.
    public var path: String
    /// The raw query after `?`, or nil without one.
    public var query: String?
    /// Decoded query items, in order.
    public var queryItems: [QueryItem]
    public var headers: [HTTPHeaderField]
    /// The body, base64.
    public var body: String
    public var bodySize: Int

    /// The decoded body bytes (empty if `body` is not valid base64, which the server never sends).
    public var bodyData: Data { Data(base64Encoded: body) ?? Data() }

    /// The first value of header `name`, compared without case.
    public func header(_ name: String) -> String? {
        HTTPHeaders(headers)[name]
    }
}
