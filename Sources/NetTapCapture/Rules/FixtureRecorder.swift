import Foundation
import NetTapCore
import NetTapExport

/// Writes exchanges that `record` rules (and replay's `recordMissing`) select into HAR files.
///
/// A file that exists when first written to in this process is appended to, not replaced, so a
/// fixture can be grown over several runs; delete it to start over. Each append rewrites the file
/// atomically on the recorder's own queue, so a crash never leaves half a HAR behind.
final class FixtureRecorder: Sendable {
    private let queue = DispatchQueue(label: "NetTap.fixtures", qos: .utility)
    private let files = Protected<[URL: [Exchange]]>([:])
    private let failures = Protected<[String]>([])

    func append(_ exchange: Exchange, to targets: [URL]) {
        guard !targets.isEmpty else { return }
        queue.async { [self] in
            for target in targets {
                var entries = files.withLock { $0[target] } ?? Self.existingEntries(target)
                entries.append(exchange)
                files.withLock { $0[target] = entries }
                do {
                    try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try HAR.encode(entries).write(to: target, options: .atomic)
                } catch {
                    failures.withLock { $0.append("\(target.path): \(error)") }
                }
            }
        }
    }

    /// Waits for pending writes.
    func flush() {
        queue.sync {}
    }

    /// Write failures so far (a read-only directory, a full disk).
    var writeFailures: [String] { failures.current }

    private static func existingEntries(_ url: URL) -> [Exchange] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        return (try? HARReader().decode(contentsOf: url)) ?? []
    }
}
