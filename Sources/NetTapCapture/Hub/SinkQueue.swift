import Dispatch
import NetTapCore

/// One sink's own serial queue with a bounded backlog.
///
/// `enqueue` never blocks: when the backlog is full the oldest waiting event is dropped and counted,
/// so a stalled sink costs only its own events.
final class SinkQueue: @unchecked Sendable {
    let sink: CaptureSink
    private let queue: DispatchQueue
    private let limit: Int
    private let lock = Protected(Backlog())

    private struct Backlog {
        var events: [CaptureEvent] = []
        var head = 0
        var isDraining = false
        var dropped = 0

        var count: Int { events.count - head }
    }

    init(sink: CaptureSink) {
        self.sink = sink
        self.limit = max(1, sink.pendingLimit)
        self.queue = DispatchQueue(label: "NetTap.sink.\(type(of: sink))")
    }

    var droppedCount: Int { lock.withLock { $0.dropped } }

    func enqueue(_ event: CaptureEvent) {
        let mustSchedule = lock.withLock { backlog -> Bool in
            if backlog.count >= limit {
                backlog.head += 1
                backlog.dropped += 1
            }
            backlog.events.append(event)
            if backlog.isDraining { return false }
            backlog.isDraining = true
            return true
        }
        if mustSchedule {
            queue.async { self.drainBacklog() }
        }
    }

    private func drainBacklog() {
        while true {
            let batch: ArraySlice<CaptureEvent>? = lock.withLock { backlog in
                guard backlog.count > 0 else {
                    backlog.isDraining = false
                    backlog.events.removeAll(keepingCapacity: true)
                    backlog.head = 0
                    return nil
                }
                let taken = backlog.events[backlog.head...]
                backlog.events = []
                backlog.head = 0
                return taken
            }
            guard let batch else { return }
            for event in batch {
                sink.receive(event)
            }
        }
    }

    /// Calls `done` once every event enqueued before this call has been delivered.
    func afterPendingEvents(_ done: @escaping @Sendable () -> Void) {
        queue.async(execute: done)
    }
}
