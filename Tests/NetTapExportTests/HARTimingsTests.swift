import Foundation
import NetTapCore
import Testing
@testable import NetTapExport

/// How metrics become HAR timings and back.
@Suite struct HARTimingsTests {
    static func exchange(duration: TimeInterval?, metrics: TimingMetrics?) -> Exchange {
        Exchange(
            sessionID: "t", startedAt: SampleExchanges.at(0), duration: duration,
            request: CapturedRequest(method: "GET", url: "http://x.test/"), metrics: metrics, capturePath: .session)
    }

    @Test func metricsThatClaimMoreThanTheDurationAreCutFromTheEnd() {
        // 10 ms of wait and 10 ms of receive in metrics, but the exchange lasted 15 ms.
        let metrics = TimingMetrics(
            requestStart: SampleExchanges.at(0), requestEnd: SampleExchanges.at(0),
            responseStart: SampleExchanges.at(10_000), responseEnd: SampleExchanges.at(20_000))
        let timings = HARTimings(exchange: Self.exchange(duration: 0.015, metrics: metrics))
        #expect(timings.wait == 10_000)
        #expect(timings.receive == 5_000)
        #expect(timings.total == 15_000)
    }

    @Test func timingsLaidEndToEndGiveTheSameTimingsBack() {
        let original = HARTimings(blocked: 1_000, dns: 2_000, connect: 30_000, send: 100, wait: 40_000, receive: 3_000, ssl: 20_000)
        let metrics = original.metrics(start: SampleExchanges.baseMicros, remoteAddress: "192.0.2.1")
        let again = HARTimings(exchange: Self.exchange(duration: Double(original.total) / 1_000_000, metrics: metrics))
        #expect(again == original)
        #expect(metrics.remoteAddress == "192.0.2.1")
    }

    @Test func unknownPhasesStayUnknownThroughTheTrip() {
        let original = HARTimings(send: 0, wait: 12_345, receive: 0)
        let metrics = original.metrics(start: SampleExchanges.baseMicros, remoteAddress: nil)
        #expect(metrics.fetchStart == nil && metrics.domainLookupStart == nil && metrics.connectStart == nil)
        let again = HARTimings(exchange: Self.exchange(duration: 0.012345, metrics: metrics))
        #expect(again == original)
    }

    @Test func withoutADurationTheTimingsAreWhatTheMetricsSay() {
        let metrics = TimingMetrics(fetchStart: SampleExchanges.at(0), responseStart: SampleExchanges.at(7_000))
        let timings = HARTimings(exchange: Self.exchange(duration: nil, metrics: metrics))
        #expect(timings.wait == 7_000)
        #expect(timings.blocked == -1)
        #expect(timings.total == 7_000)
    }
}
