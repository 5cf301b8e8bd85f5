import Foundation

/// A fresh, empty directory for one test, removed (with its contents) when the value goes away.
///
/// ```swift
/// let directory = try TemporaryDirectory()
/// let database = directory.file("capture.sqlite")
/// ```
public final class TemporaryDirectory: Sendable {
    public let url: URL

    /// Creates `<system temp>/<prefix>-<UUID>`.
    public init(prefix: String = "nettap-test") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    public var path: String { url.path }

    /// The URL of `name` inside the directory (the file is not created).
    public func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }
}
