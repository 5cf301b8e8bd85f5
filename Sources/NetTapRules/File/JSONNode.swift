/// A JSON value together with where it starts in its file.
///
/// The rules file is read into nodes rather than through `JSONDecoder`, because a semantic error
/// ("status must be from 100 to 599") must point at the line and column of the offending value.
/// Objects keep their members in file order (duplicates are rejected by the parser).
struct JSONNode: Sendable, Hashable {
    indirect enum Value: Sendable, Hashable {
        case null
        case bool(Bool)
        /// The number as written, so integers stay exact and serialization keeps the author's spelling.
        case number(String)
        case string(String)
        case array([JSONNode])
        case object([JSONMember])
    }

    var value: Value
    var position: SourcePosition

    /// A short description of the value for error messages: `string "200"`, `number 3`, `array`.
    var summary: String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let text): return "number \(text)"
        case .string(let text):
            let shown = text.count > 40 ? String(text.prefix(40)) + "..." : text
            return "string \"\(shown)\""
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// The member named `key`, when this is an object that has one.
    func member(_ key: String) -> JSONMember? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.key == key }
    }
}

/// One `"key": value` pair of a JSON object.
struct JSONMember: Sendable, Hashable {
    var key: String
    var keyPosition: SourcePosition
    var value: JSONNode
}
