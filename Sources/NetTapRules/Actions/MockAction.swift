import Foundation
import NetTapCore

/// Answers the request with a fixed response, without touching the network.
///
/// The body is resolved when the rule is built (a `file` body is read at load time, so a missing
/// file is a load error with its position, not a surprise on the device).
///
/// ```json
/// {"mock": {"status": 200, "json": {"users": []}, "delay": 0.3}}
/// ```
public struct MockAction: Sendable, Hashable, CustomStringConvertible {
    public var response: RuleResponse
    /// Where the body came from, for descriptions: "json", "text", "base64", "file users.json", "empty".
    public var bodySource: String

    public init(response: RuleResponse, bodySource: String) {
        self.response = response
        self.bodySource = bodySource
    }

    public var description: String {
        var text = "mock status \(response.statusCode), \(response.body.count) bytes (\(bodySource))"
        if response.delay > 0 { text += ", delay \(ThrottleProfile.format(response.delay)) s" }
        return text
    }
}
