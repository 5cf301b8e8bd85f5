import Foundation
@testable import NetTapCapture
import NetTapCore
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The hub hands its CPU back every few exchanges while it builds a batch, and pacing changes
/// nothing about what reaches the sinks.
@Suite struct HubPacingTests {
    /// Counts the yields, and after how many units of work each came.
    final class YieldLog: @unchecked Sendable {
        private let lock = NSLock()
        private var work = 0
        private var yields: [Int] = []

        func didWork() { lock.withLock { work += 1 } }
        func yieldProcessor() { lock.withLock { yields.append(work) } }
        var yieldPoints: [Int] { lock.withLock { yields } }
    }

    @Test func yieldsAfterEveryStrideOfWork() {
        let log = YieldLog()
        var pacing = HubPacing(stride: 4, yieldProcessor: log.yieldProcessor)
        for _ in 0..<14 {
            log.didWork()
            pacing.checkpoint()
        }
        #expect(log.yieldPoints == [4, 8, 12], "a yield after the 4th, 8th and 12th unit, none for the last two")
    }

    @Test func withoutAStrideItNeverYields() {
        let log = YieldLog()
        var pacing = HubPacing(stride: nil, yieldProcessor: log.yieldProcessor)
        for _ in 0..<100 { pacing.checkpoint() }
        #expect(log.yieldPoints.isEmpty)
    }

    @Test func theHubYieldsBetweenExchangesAndDeliversEveryOneInOrder() async throws {
        let log = YieldLog()
        let tap = NetTap(pacing: { HubPacing(stride: 1, yieldProcessor: log.yieldProcessor) })
        let events = CaptureControlTests.EventLog()
        tap.addSink(events)
        var urls: [String] = []
        for index in 0..<120 {
            let url = try #require(URL(string: "http://127.0.0.1:9/paced/\(index)"))
            urls.append(url.absoluteString)
            let recorder = ExchangeRecorder(tap: tap, request: URLRequest(url: url), path: .session, kind: .data, requestBody: .none)
            recorder.finish(response: HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:]))
        }
        await tap.drain()
        #expect(events.finished.map(\.request.url) == urls, "pacing delivers every exchange, in the order they ended")
        #expect(log.yieldPoints.count == urls.count, "with a stride of one, one yield per exchange built")
    }
}
