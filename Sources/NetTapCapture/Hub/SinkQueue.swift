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

    func enqueue(_ events: [CaptureEvent]) {
        guard !events.isEmpty else { return }
        let mustSchedule = state.withLock { backlog -> Bool in
            for event in events where backlog.events.append(event) {
                backlog.dropped += 1
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
            guard let next else { return }
            sink.receive(next)
        }
    }

    /// Calls `done` once every event enqueued before this call has been delivered.
    func afterPendingEvents(_ done: @escaping @Sendable () -> Void) {
        queue.async(execute: done)
    }
}
