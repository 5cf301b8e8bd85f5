/// A parsed JSON value that keeps the distinctions `JSONSerialization` blurs on Linux
/// (a boolean is not a number) so that import errors can say exactly what was found.
enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONMembers)

    /// "string", "number", ... for messages of the form "expected X, found Y".
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

/// The members of a JSON object in file order.
///
/// A list rather than a dictionary: HAR objects have a handful of members, and hashing every key
/// of every header object was a third of import time. Looking a key up takes its last occurrence,
/// as most JSON readers do with repeated keys.
struct JSONMembers: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    var list: [(key: String, value: JSONValue)]

    init(_ list: [(key: String, value: JSONValue)] = []) {
        self.list = list
    }

    init(dictionaryLiteral elements: (String, JSONValue)...) {
        list = elements.map { (key: $0.0, value: $0.1) }
    }

    subscript(key: String) -> JSONValue? {
        var index = list.count - 1
        while index >= 0 {
            if list[index].key == key { return list[index].value }
            index -= 1
        }
        return nil
    }

    /// Members compare as a JSON object does: by key, whatever their order.
    static func == (lhs: JSONMembers, rhs: JSONMembers) -> Bool {
        var left: [String: JSONValue] = [:]
        var right: [String: JSONValue] = [:]
        for (key, value) in lhs.list { left[key] = value }
        for (key, value) in rhs.list { right[key] = value }
        return left == right
    }
}
