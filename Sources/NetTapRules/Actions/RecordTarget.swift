import Foundation

/// Records matching exchanges (after redaction) into a HAR file.
public struct RecordTarget: Sendable, Hashable, CustomStringConvertible {
    /// The HAR file, resolved against the rules file's directory.
    public var harFile: URL

    public init(harFile: URL) {
        self.harFile = harFile
    }

    public var description: String { "record to \(harFile.path)" }
}
