import Foundation

/// A value guarded by a lock: the small, explicit unsafe island that lets reference types
/// with mutable state be `Sendable`. Critical sections must stay short and never call out
/// to code that could take another NetTap lock.
///
/// Inlinable, so that each module specializes it for its own values: called across modules as a
/// generic, every use looked up type metadata and copied through value witnesses (BENCHMARKS.md).
public final class Protected<Value>: @unchecked Sendable {
    @usableFromInline let lock = NSLock()
    @usableFromInline var value: Value

    @inlinable
    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    @discardableResult
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the current value.
    @inlinable
    public var current: Value {
        withLock { $0 }
    }
}
