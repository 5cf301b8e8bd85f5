import Foundation
import NetTapCore

/// A response that a rule produces instead of the network's: from a mock, a mapped local file or a
/// block with a status. The capture layer delivers it after `delay` seconds.
public struct RuleResponse: Sendable, Hashable {
    public var statusCode: Int
    public var headers: HTTPHeaders
    public var body: Data
    /// Seconds to wait before answering.
    public var delay: TimeInterval

    public init(statusCode: Int, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data(), delay: TimeInterval = 0) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.delay = delay
    }
}
