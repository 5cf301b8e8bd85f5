import Dispatch
import Foundation
import NetTapCore

/// Takes finished recorders off the request path, turns what they recorded into redacted `Exchange`
/// values on its own queue, and fans them out to every sink's queue.
///
/// The request path only appends the finished recorder to a bounded backlog under a short lock;
/// reading what it recorded, building the exchange, converting headers, capping bodies and
/// redacting all happen here.
///
/// The hub wakes up at most once per `coalescingDelay` and then processes everything that arrived
/// meanwhile, handing each sink one batch. Waking a queue costs a thread switch; once per exchange,
/// that was a large share of what capture cost a busy app (BENCHMARKS.md). A live inspector sees an
/// exchange at most that much later; `drain()` processes at once. While it builds a batch it hands
/// its core back every few exchanges (`HubPacing`), so that the burst does not hold up URLSession.
final class CaptureHub: @unchecked Sendable {
    static let coalescingDelay: DispatchTimeInterval = .milliseconds(25)

    private let queue = DispatchQueue(label: "NetTap.hub", qos: .utility)
    private let backlog: Protected<Backlog>
    private let sinks = Protected<[SinkQueue]>([])
    private let wantsStarts = Protected(false)

    private enum Item {
        case started(ExchangeStart, CaptureSettings)
        /// A recorder that `finish` handed over; the hub reads what it recorded.
        case finished(ExchangeRecorder)
    }

    private struct Backlog {
        var items: DropOldestBuffer<Item>
        var isScheduled = false
        var dropped = 0
    }

    /// Makes the pacing of one batch: how often the hub hands its CPU back (`HubPacing`).
    private let pacing: @Sendable () -> HubPacing

    init(pendingLimit: Int, pacing: @escaping @Sendable () -> HubPacing) {
        backlog = Protected(Backlog(items: DropOldestBuffer(limit: pendingLimit)))
        self.pacing = pacing
    }

    func add(_ sink: CaptureSink) {
        sinks.withLock { $0.append(SinkQueue(sink: sink)) }
        refreshStartInterest()
    }

    func remove(_ sink: CaptureSink) {
        sinks.withLock { $0.removeAll { $0.sink === sink } }
        refreshStartInterest()
    }

    private func refreshStartInterest() {
        let wanted = sinks.withLock { $0.contains { $0.sink.wantsStartEvents } }
        wantsStarts.withLock { $0 = wanted }
    }

    var droppedCount: Int {
        backlog.withLock { $0.dropped } + sinks.withLock { $0.reduce(0) { $0 + $1.droppedCount } }
    }

    /// Whether any sink wants `.started` events; lets the request path skip building them.
    var hasStartListeners: Bool { wantsStarts.current }

    func submitStart(_ start: ExchangeStart, settings: CaptureSettings) {
        guard hasStartListeners else { return }
        append(.started(start, settings))
    }

    func submit(_ recorder: ExchangeRecorder) {
        append(.finished(recorder))
    }

    private func append(_ item: consuming Item) {
        var item = Optional(item)
        let mustSchedule = backlog.withLock { backlog -> Bool in
            if let moved = item.take(), backlog.items.append(moved) { backlog.dropped += 1 }
            if backlog.isScheduled { return false }
            backlog.isScheduled = true
            return true
        }
        if mustSchedule {
            queue.asyncAfter(deadline: .now() + Self.coalescingDelay) { self.process() }
        }
    }

    /// On the hub queue: processes everything waiting, until the backlog is empty.
    ///
    /// Items, exchanges and event lists are moved from one stage to the next, not copied: at a
    /// few thousand requests a second, the copies were a large part of the hub's cost.
    private func process() {
        while true {
            var items = backlog.withLock { backlog -> [Item] in
                let taken = backlog.items.drain()
                if taken.isEmpty { backlog.isScheduled = false }
                return taken
            }
            if items.isEmpty { return }
            let targets = sinks.current
            // Every event in arrival order, for sinks that want starts; only the finished ones for
            // the rest. The first list is built only when some sink wants it: each entry is one more
            // copy of an exchange, a retain and a release of every string and buffer it holds.
            let anyWantsStarts = targets.contains { $0.sink.wantsStartEvents }
            var events: [CaptureEvent] = []
            var finished: [CaptureEvent] = []
            if anyWantsStarts { events.reserveCapacity(items.count) }
            finished.reserveCapacity(items.count)
            // Popped from the end, so reversed first: each item leaves the array as it is taken.
            items.reverse()
            var batchPacing = pacing()
            while let item = items.popLast() {
                switch consume item {
                case .started(let start, let settings):
                    if anyWantsStarts { events.append(.started(settings.redactor.redact(start))) }
                case .finished(let recorder):
                    if targets.isEmpty, !recorder.hasRecordTargets { continue }
                    guard let capture = recorder.capture() else { continue }
                    let exchange = capture.makeExchange()
                    RulesRuntime.shared.recorder.append(exchange, to: capture.recordTargets)
                    if anyWantsStarts { events.append(.finished(exchange)) }
                    finished.append(.finished(consume exchange))
                    batchPacing.checkpoint()
                }
            }
            // The last sink that wants each list takes it over; sinks before it get copies.
            let lastWantingStarts = targets.lastIndex { $0.sink.wantsStartEvents }
            let lastWantingFinished = targets.lastIndex { !$0.sink.wantsStartEvents }
            for (index, target) in targets.enumerated() {
                if target.sink.wantsStartEvents {
                    target.enqueue(index == lastWantingStarts ? Self.take(&events) : events)
                } else {
                    target.enqueue(index == lastWantingFinished ? Self.take(&finished) : finished)
                }
            }
        }
    }

    private static func take(_ events: inout [CaptureEvent]) -> [CaptureEvent] {
        var taken: [CaptureEvent] = []
        swap(&taken, &events)
        return taken
    }

    /// Resumes once everything submitted before the call has reached every sink.
    func drain() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                // Process what waits now rather than when the coalescing delay ends.
                self.process()
                let targets = self.sinks.current
                let group = DispatchGroup()
                for target in targets {
                    group.enter()
                    target.afterPendingEvents { group.leave() }
                }
                group.notify(queue: .global()) {
                    RulesRuntime.shared.flushRecordings()
                    continuation.resume()
                }
            }
        }
    }
}
