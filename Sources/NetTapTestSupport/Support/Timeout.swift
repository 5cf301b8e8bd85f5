import Foundation
import NetTapCore

/// Thrown by `withTimeout` when the operation did not finish in time.
public struct TimeoutError: Error, CustomStringConvertible {
    public var seconds: Double
    public var label: String
    public var description: String { "\(label) did not finish within \(seconds) s" }
}

/// Runs `operation`, failing with `TimeoutError` if it has not finished after `seconds`: a watchdog
/// that turns a hang into a clear test failure. The operation is cancelled on timeout; if it
/// ignores cancellation it keeps running detached, but the caller is released either way.
///
/// ```swift
/// let (data, _) = try await withTimeout(seconds: 10, "download") {
///     try await session.data(from: url)
/// }
/// ```
public func withTimeout<T: Sendable>(
    seconds: Double, _ label: String = "operation", _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let outcome = Protected<CheckedContinuation<T, any Error>?>(nil)
    let tasks = Protected<[Task<Void, Never>]>([])
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            outcome.withLock { $0 = continuation }
            // Whoever finishes first takes the continuation; the other finds it gone.
            let finish: @Sendable (Result<T, any Error>) -> Void = { result in
                guard let pending = outcome.withLock({ state -> CheckedContinuation<T, any Error>? in
                    defer { state = nil }
                    return state
                }) else { return }
                tasks.withLock { $0.forEach { $0.cancel() } }
                pending.resume(with: result)
            }
            let work = Task {
                do {
                    finish(.success(try await operation()))
                } catch {
                    finish(.failure(error))
                }
            }
            let watchdog = Task {
                try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
                if !Task.isCancelled { finish(.failure(TimeoutError(seconds: seconds, label: label))) }
            }
            tasks.withLock { $0 = [work, watchdog] }
            if outcome.withLock({ $0 == nil }) {
                work.cancel()
                watchdog.cancel()
            }
        }
    } onCancel: {
        tasks.withLock { $0.forEach { $0.cancel() } }
    }
}
