import Dispatch
import Foundation
import NetTapCore

/// Takes raw captures off the request path, turns them into redacted `Exchange` values on its own
/// queue, and fans them out to every sink's queue.
///
/// The request path only appends to a bounded backlog under a short lock; building the exchange,
/// converting headers, capping bodies and redacting all happen here.
final class CaptureHub: @unchecked Sendable {
    private let queue = DispatchQueue(label: "NetTap.hub", qos: .utility)
    private let limit: Int
    private let backlog = Protected(Backlog())
    private let sinks = Protected<[SinkQueue]>([])
    private let wantsStarts = Protected(false)

    private enum Item {
        case started(ExchangeStart, RedactionPolicy)
        case finished(RawCapture)
    }

    private struct Backlog {
        var items: [Item] = []
        var head = 0
        var isDraining = false
        var dropped = 0
    }

    init(pendingLimit: Int) {
        self.limit = max(1, pendingLimit)
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

    func submitStart(_ start: ExchangeStart, redaction: RedactionPolicy) {
        guard hasStartListeners else { return }
        append(.started(start, redaction))
    }

    func submit(_ capture: RawCapture) {
        append(.finished(capture))
    }

    private func append(_ item: Item) {
        let mustSchedule = backlog.withLock { backlog -> Bool in
            if backlog.items.count - backlog.head >= limit {
                backlog.head += 1  // drop the oldest without shifting the array
                backlog.dropped += 1
            }
            backlog.items.append(item)
            if backlog.isDraining { return false }
            backlog.isDraining = true
            return true
        }
        if mustSchedule {
            queue.async { self.process() }
        }
    }

    private func process() {
        while true {
            let items: ArraySlice<Item> = backlog.withLock { backlog in
                let taken = backlog.items[backlog.head...]
                backlog.items = []
                backlog.head = 0
                if taken.isEmpty { backlog.isDraining = false }
                return taken
            }
            if items.isEmpty { return }
            let targets = sinks.current
            for item in items {
                switch item {
                case .started(let start, let redaction):
                    let event = CaptureEvent.started(Redactor(policy: redaction).redact(start))
                    for target in targets where target.sink.wantsStartEvents {
                        target.enqueue(event)
                    }
                case .finished(let capture):
                    if targets.isEmpty, capture.recordTargets.isEmpty { continue }
                    let exchange = capture.makeExchange()
                    RulesRuntime.shared.recorder.append(exchange, to: capture.recordTargets)
                    let event = CaptureEvent.finished(exchange)
                    for target in targets {
                        target.enqueue(event)
                    }
                }
            }
        }
    }

    /// Resumes once everything submitted before the call has reached every sink.
    func drain() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                // Runs after the processing pass that was pending when drain() was called.
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
