/// Why a rules file was rejected: the file, the line and column of the offending value, the rule
/// (index and name), the field path inside it, and what is wrong.
///
/// `description` reads `rules.json:7:15: rule #2 "users": match.port: must be an integer from 1 to 65535, found 0`.
public struct RuleFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file as named by the caller (nil for data loaded from memory).
    public var file: String?
    /// Where the offending value (or key, or syntax error) is; nil when the file could not be read.
    public var position: SourcePosition?
    /// The index in `rules` of the rule concerned, if any.
    public var ruleIndex: Int?
    /// The rule's name, when it has one and the file parsed far enough to know it.
    public var ruleName: String?
    /// The path of the field inside the rule (`actions[0].mock.status`), or from the top of the
    /// file outside rules (`version`); empty for the document as a whole.
    public var field: String
    public var message: String

    public init(
        file: String? = nil, position: SourcePosition?, ruleIndex: Int? = nil, ruleName: String? = nil,
        field: String, message: String
    ) {
        self.file = file
        self.position = position
        self.ruleIndex = ruleIndex
        self.ruleName = ruleName
        self.field = field
        self.message = message
    }

    public var description: String {
        var text = ""
        if let file { text += file + ":" }
        if let position { text += "\(position):" }
        if !text.isEmpty { text += " " }
        if let ruleIndex {
            text += "rule #\(ruleIndex)"
            if let ruleName { text += " \"\(ruleName)\"" }
            text += ": "
        }
        if !field.isEmpty { text += field + ": " }
        return text + message
    }
}
