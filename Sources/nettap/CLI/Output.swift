import Foundation

/// Writing to the standard streams without buffering surprises between stdout and stderr.
enum Output {
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func write(_ data: Data) {
        FileHandle.standardOutput.write(data)
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Whether stderr is a terminal (progress lines are shown only then).
    static var stderrIsTerminal: Bool {
        isatty(2) != 0
    }
}
