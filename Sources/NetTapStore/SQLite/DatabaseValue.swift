import Foundation

/// A value as SQLite stores it: one of its five storage classes.
public enum DatabaseValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// The value as an integer, when it is one.
    public var int64: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The value as a double (integers widen), when it is a number.
    public var double: Double? {
        switch self {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        default: return nil
        }
    }

    /// The value as text, when it is text.
    public var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// `.null` for nil, else the wrapped value.
    public static func optional(_ value: String?) -> DatabaseValue { value.map { .text($0) } ?? .null }
    public static func optional(_ value: Int64?) -> DatabaseValue { value.map { .integer($0) } ?? .null }
    public static func optional(_ value: Double?) -> DatabaseValue { value.map { .real($0) } ?? .null }
}
