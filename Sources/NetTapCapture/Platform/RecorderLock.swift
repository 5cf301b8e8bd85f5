import Foundation

#if canImport(Darwin)
/// The lock of one `ExchangeRecorder`. On Apple platforms, `NSLock`: the standard library's
/// `Mutex`, which lives inside its owner, needs iOS 18 and macOS 15, and the package supports iOS 16.
typealias RecorderLock = NSLock
#else
import Synchronization

/// The lock of one `ExchangeRecorder`, stored inside it. NetTap makes a recorder for every request;
/// on Linux an `NSLock` is two more allocations per request (the object and its `pthread_mutex_t`),
/// both freed later on the hub's thread (docs/linux-foundation-notes.md, fact 21).
struct RecorderLock: ~Copyable {
    private let mutex = Mutex(())

    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        try mutex.withLock { _ in try body() }
    }
}
#endif
