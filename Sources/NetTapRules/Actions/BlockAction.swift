import NetTapCore

/// Stops the request: it fails with a URL error, or is answered with a status and an empty body.
///
/// ```json
/// {"block": {"error": "notConnectedToInternet"}}
/// {"block": {"status": 451}}
/// ```
public enum BlockAction: Sendable, Hashable, CustomStringConvertible {
    case fail(URLErrorCode)
    case status(Int)

    /// The response for `.status`; nil for `.fail`.
    public var response: RuleResponse? {
        guard case .status(let code) = self else { return nil }
        return RuleResponse(statusCode: code, headers: ["Content-Length": "0"])
    }

    public var description: String {
        switch self {
        case .fail(let error): return "block with error \(error)"
        case .status(let code): return "block with status \(code)"
        }
    }
}
