import Foundation

/// A file written whole or not at all: bytes go to a temporary file beside it, which replaces the
/// target only on `commit()`. An export that fails half-way leaves no half file behind.
final class OutputFile {
    let path: String
    let handle: FileHandle
    private let temporaryPath: String
    private var isDone = false

    init(path: String) throws {
        self.path = path
        let url = URL(fileURLWithPath: path)
        temporaryPath = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).partial").path
        guard FileManager.default.createFile(atPath: temporaryPath, contents: nil),
            let handle = FileHandle(forWritingAtPath: temporaryPath)
        else {
            throw CLIError.failure("cannot write '\(path)': cannot create a file in its directory")
        }
        self.handle = handle
    }

    deinit {
        discard()
    }

    /// Closes the file and moves it into place.
    func commit() throws {
        guard !isDone else { return }
        isDone = true
        do {
            try handle.close()
        } catch {
            try? FileManager.default.removeItem(atPath: temporaryPath)
            throw CLIError.failure("cannot write '\(path)': \(error.localizedDescription)")
        }
        // rename(2) replaces an existing file atomically (Foundation's replaceItemAt does not work on Linux).
        guard rename(temporaryPath, path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temporaryPath)
            throw CLIError.failure("cannot write '\(path)': \(reason)")
        }
    }

    /// Removes the temporary file (after a failure).
    func discard() {
        guard !isDone else { return }
        isDone = true
        try? handle.close()
        try? FileManager.default.removeItem(atPath: temporaryPath)
    }
}
