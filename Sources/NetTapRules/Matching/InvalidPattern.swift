/// A host pattern, path glob or regular expression that cannot be used, and why.
public struct InvalidPattern: Error, Sendable, Hashable, CustomStringConvertible {
    public let pattern: String
    public let reason: String

    public init(pattern: String, reason: String) {
        self.pattern = pattern
        self.reason = reason
    }

    public var description: String { "\"\(pattern)\": \(reason)" }
}
