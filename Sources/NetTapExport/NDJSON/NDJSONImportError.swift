import Foundation

/// A line of an NDJSON file that is not an exchange, named by line number (from 1) and, where the
/// problem is inside the exchange, the path of the field.
///
/// ```
/// line 3: request.method: expected a string, found number
/// line 5, column 12: expected ',' or '}' after an object member, found ']'
/// ```
public struct NDJSONImportError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    public var file: String?
    public var line: Int
    /// Column (from 1) of a JSON syntax error within the line.
    public var column: Int?
    /// Path of the offending field within the exchange JSON, such as "request.headers[1].value".
    public var field: String?
    public var reason: String

    public init(file: String? = nil, line: Int, column: Int? = nil, field: String? = nil, reason: String) {
        self.file = file
        self.line = line
        self.column = column
        self.field = field
        self.reason = reason
    }

    public var description: String {
        var parts: [String] = []
        if let file { parts.append(file) }
        parts.append(column.map { "line \(line), column \($0)" } ?? "line \(line)")
        if let field { parts.append(field) }
        parts.append(reason)
        return parts.joined(separator: ": ")
    }

    public var errorDescription: String? { description }
}
