import Foundation

/// Writing to the standard streams without buffering surprises between stdout and stderr.
///
/// Writes never trap: SIGPIPE is ignored (main.swift), and a reader that has gone away
/// (`nettap list | head`) makes further writes fail quietly instead of crashing the process,
/// as `FileHandle.write(_:)` would.
enum Output {
    static func out(_ text: String) {
        write(Data((text + "\n").utf8))
    }

    static func write(_ data: Data) {
        try? FileHandle.standardOutput.write(contentsOf: data)
    }

    static func error(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data((text + "\n").utf8))
    }

    /// Whether stderr is a terminal (progress lines are shown only then).
    static var stderrIsTerminal: Bool {
        isatty(2) != 0
    }

    /// Whether `error` is a write to a pipe whose reader has closed it (EPIPE).
    static func isBrokenPipe(_ error: any Error) -> Bool {
        var current: NSError? = error as NSError
        while let nsError = current {
            if nsError.domain == NSPOSIXErrorDomain, nsError.code == Int(EPIPE) { return true }
            current = nsError.userInfo[NSUnderlyingErrorKey] as? NSError
        }
        return false
    }
}
