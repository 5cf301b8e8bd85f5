/// A parsed JSON value that keeps the distinctions `JSONSerialization` blurs on Linux
/// (a boolean is not a number) so that import errors can say exactly what was found.
enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Members by key; when a key is repeated the last value wins, as in most JSON readers.
    case object([String: JSONValue])

    /// "a string", "a number", ... for messages of the form "expected X, found Y".
    var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}
