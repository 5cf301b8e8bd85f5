import Foundation

/// A progress line on stderr for long work, shown only when stderr is a terminal (so that logs
/// and pipes stay clean), redrawn in place at most ten times a second and erased at the end.
///
/// ```swift
/// let progress = ProgressLine()
/// for (index, item) in items.enumerated() { progress.update("exported \(index + 1) of \(items.count)") }
/// progress.clear()
/// ```
final class ProgressLine {
    private let isEnabled: Bool
    private var lastDrawn = Date.distantPast
    private var isShowing = false

    init(enabled: Bool = Output.stderrIsTerminal) {
        isEnabled = enabled
    }

    /// Shows `text` unless the line was drawn less than 0.1 s ago (or `always`: a new phase).
    func update(_ text: @autoclosure () -> String, always: Bool = false) {
        guard isEnabled else { return }
        let now = Date()
        guard always || now.timeIntervalSince(lastDrawn) >= 0.1 else { return }
        lastDrawn = now
        isShowing = true
        try? FileHandle.standardError.write(contentsOf: Data(("\r\u{1B}[K" + text()).utf8))
    }

    /// Erases the line, so that what follows starts on a clean line.
    func clear() {
        guard isShowing else { return }
        isShowing = false
        try? FileHandle.standardError.write(contentsOf: Data("\r\u{1B}[K".utf8))
    }
}
