import Dispatch
import Foundation
import NetTapCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Measures what NetTap itself does per captured exchange, without the network, for nettap-bench.
///
/// `nettap-bench capture` shows the sum of NetTap's cost and of its effect on URLSession, under a
/// machine that drifts by tens of percent; this isolates NetTap's own CPU, phase by phase, on the
/// code the instrumented session runs, for an exchange shaped like the capture benchmark's (a GET
/// without app headers, a 1 KiB response with the eight headers nginx sends).
///
/// ```swift
/// let cost = CapturePipelineBenchmark.measure(iterations: 50_000)
/// print(cost.requestPathNanoseconds, cost.buildNanoseconds, cost.deliveryNanoseconds)
/// ```
public enum CapturePipelineBenchmark {
    public struct Cost: Sendable, Codable {
        /// On the request path, per exchange: the capture decision, the recorder, the session's
        /// tracking, and handing the finished capture to the hub.
        public var requestPathNanoseconds: Double
        /// On the hub's queue: reading what a finished recorder holds and turning it into a
        /// redacted `Exchange`.
        public var buildNanoseconds: Double
        /// On the sink's queue: a ring-buffer sink taking the exchange, through the sink queue.
        public var deliveryNanoseconds: Double
    }

    /// The phases, by the names `measure(iterations:rounds:only:)` takes.
    public enum Phase: String, CaseIterable, Sendable {
        case request, build, delivery
    }

    /// Best of `rounds` timings of each phase over `iterations` exchanges. A phase left out of
    /// `only` is not run and reads as zero: running one phase alone lets a counter outside the
    /// process (`perf stat` on allocations or reference counting) attribute its counts to that phase.
    public static func measure(iterations: Int, rounds: Int = 5, only: Set<Phase> = Set(Phase.allCases)) async -> Cost {
        let count = max(1, iterations)
        let sample = SampleExchange()
        var cost = Cost(requestPathNanoseconds: .infinity, buildNanoseconds: .infinity, deliveryNanoseconds: .infinity)
        for _ in 0..<max(1, rounds) {
            if only.contains(.request) { cost.requestPathNanoseconds = min(cost.requestPathNanoseconds, await requestPath(sample, count)) }
            if only.contains(.build) { cost.buildNanoseconds = min(cost.buildNanoseconds, build(sample, count)) }
            if only.contains(.delivery) { cost.deliveryNanoseconds = min(cost.deliveryNanoseconds, await delivery(sample, count)) }
        }
        if !only.contains(.request) { cost.requestPathNanoseconds = 0 }
        if !only.contains(.build) { cost.buildNanoseconds = 0 }
        if !only.contains(.delivery) { cost.deliveryNanoseconds = 0 }
        return cost
    }

    /// The session path's own steps for one async `data(for:)` call, around URLSession's part.
    private static func requestPath(_ sample: SampleExchange, _ count: Int) async -> Double {
        let tap = NetTap()  // no sinks: the hub takes the captures and builds nothing
        let session = NetTapSession(configuration: .ephemeral, tap: tap)
        defer { session.invalidateAndCancel() }
        var captured = 0
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<count {
            guard let (_, recorder) = session.begin(sample.request, kind: .data) else { continue }
            session.expectTask(recorder)
            recorder.didLoad(wholeBody: sample.body)
            session.end(recorder, response: sample.response, error: nil)
            captured += 1
        }
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        await tap.drain()
        precondition(captured == count, "the benchmark's request must be captured")
        return Double(elapsed) / Double(count)
    }

    private static func build(_ sample: SampleExchange, _ count: Int) -> Double {
        let recorder = sample.finishedRecorder()
        var bytes: Int64 = 0
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<count {
            bytes &+= recorder.capture()?.makeExchange().response?.body?.size ?? 0
        }
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        precondition(bytes == Int64(sample.body.count) * Int64(count), "every built exchange must keep its body")
        return Double(elapsed) / Double(count)
    }

    private static func delivery(_ sample: SampleExchange, _ count: Int) async -> Double {
        guard let exchange = sample.finishedRecorder().capture()?.makeExchange() else { return .infinity }
        let sink = RingBufferSink(capacity: 1_000)
        let queue = SinkQueue(sink: sink)
        // Batches of the size the hub hands over when busy (one wake-up per 25 ms at a few
        // thousand requests per second).
        let batch = [CaptureEvent](repeating: .finished(exchange), count: 64)
        let start = DispatchTime.now().uptimeNanoseconds
        var sent = 0
        while sent < count {
            queue.enqueue(batch)
            sent += batch.count
            // Stay under the sink's pending limit, so that nothing is dropped (and not delivered).
            if sent % (batch.count * 64) == 0 { await sink.waitForExchanges(count: sent) }
        }
        await sink.waitForExchanges(count: sent)
        precondition(queue.droppedCount == 0, "the delivery benchmark must not overrun the sink")
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        return Double(elapsed) / Double(sent)
    }

    /// A GET of a 1 KiB payload from a loopback nginx, as `nettap-bench capture` makes it.
    private struct SampleExchange: @unchecked Sendable {
        let request: URLRequest
        let body = Data(repeating: 0x61, count: 1_024)
        /// Never nil for these arguments; optional only because the initializer is failable.
        let response: HTTPURLResponse?

        init() {
            let url = URL(string: "http://127.0.0.1:18080/payload") ?? URL(fileURLWithPath: "/payload")
            let headers = [
                "Server": "nginx/1.26.3", "Date": "Thu, 03 Dec 2026 17:00:00 GMT", "Content-Type": "application/octet-stream",
                "Content-Length": "1024", "Last-Modified": "Thu, 03 Dec 2026 16:41:00 GMT", "Connection": "keep-alive",
                "ETag": "\"692f6b5c-400\"", "Accept-Ranges": "bytes",
            ]
            response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: headers)
            request = URLRequest(url: url)
        }

        /// A recorder of this exchange, finished as an async call finishes it; its tap has no sinks,
        /// so the hub that it is handed to builds nothing.
        func finishedRecorder() -> ExchangeRecorder {
            let recorder = ExchangeRecorder(tap: NetTap(), request: request, path: .session, kind: .data, requestBody: .none)
            recorder.didLoad(wholeBody: body)
            recorder.finish(response: response, error: nil)
            return recorder
        }
    }
}
