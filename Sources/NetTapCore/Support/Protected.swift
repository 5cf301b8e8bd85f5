import Foundation

/// A value guarded by a lock: the small, explicit unsafe island that lets reference types
/// with mutable state be `Sendable`. Critical sections must stay short and never call out
/// to code that could take another NetTap lock.
public final class Protected<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    @discardableResult
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the current value.
    public var current: Value {
        withLock { $0 }
    }
}
