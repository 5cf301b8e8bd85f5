import Foundation

/// A fresh directory per test, removed when the value goes away.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("nettap-rules-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Writes `contents` at `path` (relative, directories created) and returns its URL.
    @discardableResult
    func write(_ path: String, _ contents: String) throws -> URL {
        try write(path, Data(contents.utf8))
    }

    @discardableResult
    func write(_ path: String, _ data: Data) throws -> URL {
        let file = url.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
        return file
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
