import Foundation

/// Why a HAR file was not imported, and where: the JSON position for syntax errors, otherwise the
/// entry index (from 0, as in `log.entries[3]`) and the path of the field within the entry.
///
/// ```
/// entry 3: request.headers[1].value: expected a string, found number (entry at line 12)
/// line 7, column 15: expected ',' or '}' after an object member, found '"'
/// log.entries: missing
/// ```
public struct HARImportError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The file, when the reader was given one.
    public var file: String?
    /// Index of the offending entry in `log.entries`, when the problem is in an entry.
    public var entryIndex: Int?
    /// Path of the offending field: relative to the entry ("request.headers[1].value") when
    /// `entryIndex` is set, else from the document root ("log.entries").
    public var field: String?
    /// Line (from 1) of a JSON syntax error, or of the start of the offending entry.
    public var line: Int?
    /// Column (from 1, in characters) of a JSON syntax error.
    public var column: Int?
    /// What is wrong, in words.
    public var reason: String

    public init(file: String? = nil, entryIndex: Int? = nil, field: String? = nil, line: Int? = nil,
                column: Int? = nil, reason: String) {
        self.file = file
        self.entryIndex = entryIndex
        self.field = field
        self.line = line
        self.column = column
        self.reason = reason
    }

    public var description: String {
        var parts: [String] = []
        if let file { parts.append(file) }
        if let entryIndex {
            parts.append("entry \(entryIndex)")
        } else if let line, let column {
            parts.append("line \(line), column \(column)")
        }
        if let field { parts.append(field) }
        var text = (parts + [reason]).joined(separator: ": ")
        if entryIndex != nil, let line {
            text += " (entry at line \(line))"
        }
        return text
    }

    public var errorDescription: String? { description }
}
