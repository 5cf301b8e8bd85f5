import Foundation
import NetTapCapture
import NetTapStore

/// Keeps what a command captures: a `StoreSink` on `NetTap.shared` writing into the store, for
/// `nettap fetch` (and `nettap demo`). The store applies no retention here: pruning is
/// `nettap prune`'s job, and an old import must not vanish because a fetch ran.
///
/// ```swift
/// let storage = try CaptureStorage(path: StoreOption.path(arguments))
/// // ... requests through NetTap ...
/// await NetTap.shared.drain()
/// try storage.finish()           // flushes, detaches, reports a failed write
/// ```
final class CaptureStorage {
    let path: String
    private let sink: StoreSink

    /// Opens (or creates) the store and starts keeping exchanges that finish from now on.
    init(path: String) throws {
        self.path = path
        let store = try StoreOption.open(path: path, create: true)
        sink = StoreSink(store: store, configuration: .init(retention: .unlimited))
        NetTap.shared.addSink(sink)
    }

    /// Writes everything captured so far, detaches the sink, and throws when something could not
    /// be kept. Returns how many exchanges were written. Call after `NetTap.shared.drain()`.
    @discardableResult
    func finish() throws -> Int {
        defer {
            NetTap.shared.removeSink(sink)
            sink.close()
        }
        do {
            try sink.flush()
        } catch {
            throw CLIError.failure("could not keep the captured exchanges in \(path): \(error)")
        }
        let counters = sink.counters
        if counters.failed > 0 || counters.rejected > 0 || counters.dropped > 0 {
            let reason = sink.lastError.map { ": \($0)" } ?? ""
            throw CLIError.failure(
                "\(counters.failed + counters.rejected + counters.dropped) captured exchanges were not kept in \(path)\(reason)")
        }
        return counters.written
    }
}
