import Foundation
import NetTapCore

/// Copies the store's WAL into its database file on a connection and a queue of its own, so that
/// the writer never stops to do it.
///
/// By default SQLite checkpoints inside the commit that takes the WAL past
/// `wal_autocheckpoint` pages: with the sink writing 2,000-exchange batches, every fourth batch
/// took two to three times as long as the others while it copied 16 MiB (nettap-bench store).
/// In WAL mode a checkpoint may run on another connection while the writer goes on appending,
/// so the store's writer calls `commit(walFrames:)` after each commit and this type runs a
/// passive checkpoint on its own queue once the WAL holds `threshold` frames. At most one runs
/// and one waits; requests in between are folded into the waiting one.
///
/// When checkpoints fall far behind (the background connection failed, or a reader holds an old
/// snapshot), the writer checkpoints inline again at `inlineThreshold`, so the WAL stays bounded.
final class BackgroundCheckpointer: Sendable {
    /// WAL frames (pages) after which a background checkpoint is started.
    let threshold: Int
    /// WAL frames after which the writer checkpoints itself, inside its commit.
    let inlineThreshold: Int
    private let queue: DatabaseQueue
    private let scheduled = Protected(false)
    private let failure = Protected<(any Error)?>(nil)
    private let completed = Protected(0)

    init(path: String, busyTimeout: TimeInterval, threshold: Int) throws {
        self.threshold = threshold
        inlineThreshold = threshold * 4
        queue = try DatabaseQueue(
            path: path,
            configuration: DatabaseQueue.Configuration(
                createIfMissing: false, busyTimeout: busyTimeout, label: "NetTap.ExchangeStore.checkpoint"))
    }

    /// The writer's commit hook: starts a background checkpoint when the WAL is long enough, or
    /// checkpoints on the writer's connection when the background ones fell far behind.
    func commit(walFrames: Int, on writer: Database) {
        if walFrames >= inlineThreshold {
            // SQLITE_BUSY here means the background checkpoint is running: it will catch up.
            _ = try? writer.checkpointPassive()
            return
        }
        guard walFrames >= threshold else { return }
        let start = scheduled.withLock { scheduled -> Bool in
            guard !scheduled else { return false }
            scheduled = true
            return true
        }
        guard start else { return }
        queue.async { [self] db in
            // Cleared first: a commit during this checkpoint schedules the next one.
            scheduled.withLock { $0 = false }
            do {
                try db.checkpointPassive()
                completed.withLock { $0 += 1 }
            } catch {
                failure.withLock { $0 = error }
            }
        }
    }

    /// Waits for a checkpoint started before this call to finish.
    func wait() {
        queue.sync { _ in }
    }

    /// Background checkpoints that ran to the end.
    var completedCheckpoints: Int { completed.current }

    /// The last error a background checkpoint met, if any.
    var lastError: (any Error)? { failure.current }
}
