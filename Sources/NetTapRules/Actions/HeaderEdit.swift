import NetTapCore

/// One change to a header list. Names compare without case; values are taken as written.
public enum HeaderEdit: Sendable, Hashable, CustomStringConvertible {
    /// Appends a field, keeping existing ones of the same name.
    case add(name: String, value: String)
    /// Replaces every field of that name by one (or appends it).
    case set(name: String, value: String)
    /// Removes every field of that name.
    case remove(name: String)

    public func apply(to headers: inout HTTPHeaders) {
        switch self {
        case .add(let name, let value): headers.add(name: name, value: value)
        case .set(let name, let value): headers.set(name: name, value: value)
        case .remove(let name): headers.remove(name: name)
        }
    }

    public var description: String {
        switch self {
        case .add(let name, let value): return "add \(name): \(value)"
        case .set(let name, let value): return "set \(name): \(value)"
        case .remove(let name): return "remove \(name)"
        }
    }
}

extension Array where Element == HeaderEdit {
    /// Applies the edits in order.
    public func apply(to headers: inout HTTPHeaders) {
        for edit in self { edit.apply(to: &headers) }
    }
}

/// Header edits for the request (before it is sent) and for the response (before the app sees it).
///
/// ```json
/// {"headers": {"request": {"set": {"X-Env": "staging"}, "remove": ["Cookie"]},
///              "response": {"add": {"X-Served-By": "nettap"}}}}
/// ```
public struct HeaderAction: Sendable, Hashable, CustomStringConvertible {
    public var request: [HeaderEdit]
    public var response: [HeaderEdit]

    public init(request: [HeaderEdit] = [], response: [HeaderEdit] = []) {
        self.request = request
        self.response = response
    }

    public var description: String {
        var parts: [String] = []
        parts += request.map { "request \($0)" }
        parts += response.map { "response \($0)" }
        return "headers " + parts.joined(separator: "; ")
    }
}
