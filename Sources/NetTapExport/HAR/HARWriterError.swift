/// Misuse of a `HARWriter`.
public enum HARWriterError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `write(_:)` after `finish()`.
    case finished

    public var description: String {
        switch self {
        case .finished: return "HARWriter: write(_:) called after finish()"
        }
    }
}
