import Foundation

/// Raised once when the server stops; handlers that wait (delays, trickled bodies) wait on it
/// so that `stop()` never has to outlast a pause.
final class StopSignal: @unchecked Sendable {
    private let condition = NSCondition()
    private var raised = false

    var isRaised: Bool {
        condition.lock()
        defer { condition.unlock() }
        return raised
    }

    func raise() {
        condition.lock()
        raised = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits up to `seconds`; returns true if the whole time passed, false if the signal was raised.
    func wait(seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: max(0, seconds))
        condition.lock()
        defer { condition.unlock() }
        while !raised {
            if !condition.wait(until: deadline) { return !raised }
        }
        return false
    }
}
