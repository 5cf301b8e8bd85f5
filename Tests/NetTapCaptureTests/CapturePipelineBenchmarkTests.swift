import NetTapCapture
import Testing

/// `nettap-bench capture-cost` runs `CapturePipelineBenchmark`; this keeps it working between
/// benchmark runs. Its own preconditions check that every exchange is captured, keeps its body and
/// reaches the sink (none dropped); the figures themselves are not judged here (BENCHMARKS.md).
@Suite struct CapturePipelineBenchmarkTests {
    @Test func everyPhaseCompletesAndReportsACost() async {
        let cost = await CapturePipelineBenchmark.measure(iterations: 300, rounds: 2)
        for nanoseconds in [cost.requestPathNanoseconds, cost.buildNanoseconds, cost.deliveryNanoseconds] {
            #expect(nanoseconds.isFinite && nanoseconds > 0)
        }
    }
}
