import Foundation
import NetTapCapture
import NetTapCore

/// A sink that indexes finished exchanges by the `nettap-run` query item tests put in their URLs,
/// so that tests running in parallel find their own exchanges.
final class CaptureCollector: CaptureSink, @unchecked Sendable {
    static let shared: CaptureCollector = {
        let collector = CaptureCollector()
        NetTap.shared.addSink(collector)
        return collector
    }()

    var pendingLimit: Int { 1_000_000 }

    private let condition = NSCondition()
    private var byRun: [String: [Exchange]] = [:]

    func receive(_ event: CaptureEvent) {
        guard case .finished(let exchange) = event, let run = Self.runID(in: exchange.request.url) else { return }
        condition.lock()
        byRun[run, default: []].append(exchange)
        condition.broadcast()
        condition.unlock()
    }

    static func runID(in url: String) -> String? {
        guard let range = url.range(of: "nettap-run=") else { return nil }
        return String(url[range.upperBound...].prefix { $0 != "&" && $0 != "#" })
    }

    /// The exchanges captured for `run`, waiting (bounded) until at least `count` have arrived.
    func exchanges(run: String, count: Int = 1, timeout: TimeInterval = 60) async -> [Exchange] {
        let condition = condition
        return await withCheckedContinuation { continuation in
            Thread {
                let deadline = Date().addingTimeInterval(timeout)
                condition.lock()
                while (self.byRun[run]?.count ?? 0) < count, condition.wait(until: deadline) {}
                let found = self.byRun[run] ?? []
                condition.unlock()
                continuation.resume(returning: found)
            }.start()
        }
    }

    /// Exchanges for `run` right now, without waiting (to assert that nothing was captured).
    func exchangesNow(run: String) -> [Exchange] {
        condition.lock()
        defer { condition.unlock() }
        return byRun[run] ?? []
    }
}
