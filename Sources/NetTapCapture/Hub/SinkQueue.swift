import Dispatch
import NetTapCore

/// One sink's own serial queue with a bounded backlog.
///
/// `enqueue` never blocks: when the backlog is full the oldest waiting event is dropped, released
/// and counted, so a stalled sink costs only its own events and never more than its limit in memory.
/// The hub hands events over a batch at a time, so a busy app wakes each sink's queue once per
/// batch rather than once per exchange; the sink still takes them one by one.
final class SinkQueue: @unchecked Sendable {
    let sink: CaptureSink
    private let queue: DispatchQueue
    private let state: Protected<Backlog>

    private struct Backlog {
        var events: DropOldestBuffer<CaptureEvent>
        var isDraining = false
        var dropped = 0
    }

    init(sink: CaptureSink) {
        self.sink = sink
        self.state = Protected(Backlog(events: DropOldestBuffer(limit: sink.pendingLimit)))
        // Below the app's own work, like the hub: a queue without a QoS runs at the app's priority
        // (on Linux, libdispatch maps `.utility` to nice 2; docs/linux-foundation-notes.md, 20).
        self.queue = DispatchQueue(label: "NetTap.sink.\(type(of: sink))", qos: .utility)
    }

    var droppedCount: Int { state.withLock { $0.dropped } }

    /// Takes `events` over. When the caller keeps no other copy of the array, each event is moved
    /// into the backlog rather than copied.
    func enqueue(_ events: consuming [CaptureEvent]) {
        var events = events
        guard !events.isEmpty else { return }
        // Popped from the end, so reversed first, to keep the order they happened in.
        events.reverse()
        let mustSchedule = state.withLock { backlog -> Bool in
            while let event = events.popLast() {
                if backlog.events.append(event) { backlog.dropped += 1 }
            }
            if backlog.isDraining { return false }
            backlog.isDraining = true
            return true
        }
        if mustSchedule {
            queue.async { self.drainBacklog() }
        }
    }

    /// Delivers one event at a time, so that only `pendingLimit` events ever wait besides the one
    /// the sink holds.
    private func drainBacklog() {
        while true {
            let next = state.withLock { backlog -> CaptureEvent? in
                let event = backlog.events.removeFirst()
                if event == nil { backlog.isDraining = false }
                return event
            }
            guard let event = consume next else { return }
            sink.receive(event)
        }
    }

    /// Calls `done` once every event enqueued before this call has been delivered.
    func afterPendingEvents(_ done: @escaping @Sendable () -> Void) {
        queue.async(execute: done)
    }
}
