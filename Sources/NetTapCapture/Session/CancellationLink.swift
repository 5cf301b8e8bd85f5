import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Links a Swift task's cancellation to a URLSession task that may not exist yet.
final class CancellationLink: @unchecked Sendable {
    private let state = NSLock()
    private var task: URLSessionTask?
    private var isCancelled = false

    /// Remembers `task`; returns false when cancellation already happened (the caller cancels it).
    func activate(_ task: URLSessionTask) -> Bool {
        state.withLock {
            self.task = task
            return !isCancelled
        }
    }

    func cancel() {
        let task = state.withLock { () -> URLSessionTask? in
            isCancelled = true
            return self.task
        }
        task?.cancel()
    }
}
