import Foundation

/// A value found (or missing) at a path inside one HAR entry, with typed accessors that fail
/// with "expected a string, found number" and the path of the field.
///
/// The path is only spelled out when something fails: building "request.headers[3].value" for
/// every field read was a tenth of import time.
struct JSONField {
    /// nil when the member is absent.
    let value: JSONValue?
    /// Path of the object or array that holds this value; empty at the entry itself.
    private let parentPath: String
    private let step: Step

    private enum Step {
        case none
        case key(String)
        case index(Int)
    }

    init(_ value: JSONValue?, path: String) {
        self.value = value
        self.parentPath = path
        self.step = .none
    }

    private init(_ value: JSONValue?, parentPath: String, step: Step) {
        self.value = value
        self.parentPath = parentPath
        self.step = step
    }

    /// "request.headers[1].value"; empty for the entry itself.
    var path: String {
        switch step {
        case .none: return parentPath
        case .key(let key): return parentPath.isEmpty ? key : parentPath + "." + key
        case .index(let index): return parentPath + "[" + String(index) + "]"
        }
    }

    static func member(_ value: JSONValue?, of parentPath: String, key: String) -> JSONField {
        JSONField(value, parentPath: parentPath, step: .key(key))
    }

    static func element(_ value: JSONValue?, of parentPath: String, index: Int) -> JSONField {
        JSONField(value, parentPath: parentPath, step: .index(index))
    }

    /// A problem at one field; the reader adds the entry index.
    struct Failure: Error {
        var path: String
        var reason: String
    }

    func fail(_ reason: String) -> Failure {
        Failure(path: path, reason: reason)
    }

    /// True when the member is absent or null: optional members may be either.
    var isAbsent: Bool {
        switch value {
        case nil, .null?: return true
        default: return false
        }
    }

    private func mismatch(_ expected: String) -> Failure {
        guard let value else { return fail("missing") }
        return fail("expected \(expected), found \(value.kindDescription)")
    }

    // MARK: Structure

    func object() throws(Failure) -> JSONObject {
        guard case .object(let members)? = value else { throw mismatch("an object") }
        return JSONObject(members: members, path: path)
    }

    func optionalObject() throws(Failure) -> JSONObject? {
        isAbsent ? nil : try object()
    }

    func array() throws(Failure) -> [JSONField] {
        guard case .array(let elements)? = value else { throw mismatch("an array") }
        let path = self.path
        return elements.enumerated().map { JSONField.element($1, of: path, index: $0) }
    }

    func optionalArray() throws(Failure) -> [JSONField] {
        isAbsent ? [] : try array()
    }

    // MARK: Scalars

    func string() throws(Failure) -> String {
        guard case .string(let text)? = value else { throw mismatch("a string") }
        return text
    }

    func optionalString() throws(Failure) -> String? {
        isAbsent ? nil : try string()
    }

    func number() throws(Failure) -> Double {
        guard case .number(let number)? = value else { throw mismatch("a number") }
        return number
    }

    func optionalNumber() throws(Failure) -> Double? {
        isAbsent ? nil : try number()
    }

    /// An integral number (HAR tools write sizes such as 512.0 now and then; the fraction must be zero).
    func integer() throws(Failure) -> Int64 {
        let number = try number()
        guard number.rounded() == number, abs(number) < 9.0e15 else {
            throw fail("expected an integer, found \(number)")
        }
        return Int64(number)
    }

    func optionalInteger() throws(Failure) -> Int64? {
        isAbsent ? nil : try integer()
    }
}

/// The members of a JSON object, looked up as `JSONField`s that know their path.
struct JSONObject {
    let members: JSONMembers
    let path: String

    subscript(key: String) -> JSONField {
        JSONField.member(members[key], of: path, key: key)
    }

    func has(_ key: String) -> Bool {
        members[key] != nil
    }
}
