import Foundation

/// Keeps the most recent finished exchanges in memory, oldest dropped first.
///
/// The default sink: cheap, bounded, and what `nettap fetch` and tests read from.
///
/// ```swift
/// let recent = RingBufferSink(capacity: 500)
/// NetTap.shared.addSink(recent)
/// // later
/// for exchange in recent.exchanges { print(exchange.request.url) }
/// ```
public final class RingBufferSink: CaptureSink {
    private struct State {
        var buffer: [Exchange] = []
        var next = 0
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var received = 0
    }

    public let capacity: Int
    private let state = Protected(State())

    public init(capacity: Int = 1_000) {
        self.capacity = max(1, capacity)
    }

    public func receive(_ event: consuming CaptureEvent) {
        guard case .finished(let exchange) = consume event else { return }
        // Moved into the buffer under the lock rather than copied into it.
        var kept = Optional(exchange)
        let ready: [CheckedContinuation<Void, Never>] = state.withLock { state in
            guard let exchange = kept.take() else { return [] }
            if state.buffer.count < capacity {
                state.buffer.append(exchange)
            } else {
                state.buffer[state.next] = exchange
                state.next = (state.next + 1) % capacity
            }
            state.received += 1
            let received = state.received
            let done = state.waiters.filter { $0.count <= received }.map(\.continuation)
            state.waiters.removeAll { $0.count <= received }
            return done
        }
        ready.forEach { $0.resume() }
    }

    /// The kept exchanges, oldest first.
    public var exchanges: [Exchange] {
        state.withLock { state in
            Array(state.buffer[state.next...] + state.buffer[..<state.next])
        }
    }

    /// How many finished exchanges this sink has received in all, including those since dropped.
    public var receivedCount: Int {
        state.withLock { $0.received }
    }

    /// Waits until at least `count` exchanges have been received in all. For tests and tools that
    /// need to read a capture after the requests complete, without sleeping.
    public func waitForExchanges(count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.received >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    public func removeAll() {
        state.withLock { state in
            state.buffer.removeAll()
            state.next = 0
        }
    }
}
