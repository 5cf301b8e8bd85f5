import Foundation
import NetTapCapture

/// `nettap-bench capture-cost`: NetTap's own CPU per captured exchange, phase by phase, set beside
/// one loopback request measured in the same run. `capture` shows the end-to-end ratio, which the
/// machine's drift blurs; this shows where NetTap's part of it goes.
enum CapturePipelineCommand {
    static func run(arguments: [String]) async throws -> Int32 {
        let iterations = try BenchSupport.positiveInteger("--iterations", in: arguments) ?? 20_000
        let rounds = try BenchSupport.positiveInteger("--rounds", in: arguments) ?? 15
        var only = Set(CapturePipelineBenchmark.Phase.allCases)
        if let name = BenchSupport.option("--only", in: arguments) {
            guard let phase = CapturePipelineBenchmark.Phase(rawValue: name) else {
                throw BenchError("--only: unknown phase '\(name)' (request, build or delivery)")
            }
            only = [phase]
        }
        let target = try LoopbackTarget.start(preferNginx: !arguments.contains("--builtin-server"))
        defer { target.stop() }
        print("capture cost benchmark; server: \(target.description); machine: \(BenchSupport.machineDescription())")
        let requestNanoseconds = try await BenchSupport.sequentialRequestNanoseconds(url: target.url)
        let cost = await CapturePipelineBenchmark.measure(iterations: iterations, rounds: rounds, only: only)
        let phases: [(String, Double)] = [
            ("request path (session)", cost.requestPathNanoseconds),
            ("build exchange (hub)", cost.buildNanoseconds),
            ("deliver to ring buffer", cost.deliveryNanoseconds),
        ]
        let total = phases.reduce(0) { $0 + $1.1 }
        print(String(format: "loopback request (plain URLSession, sequential): %.1f µs", requestNanoseconds / 1000))
        print("")
        print("phase                     µs per exchange   share of a request   (best of \(rounds) x \(iterations))")
        for (name, nanoseconds) in phases + [("total", total)] {
            print(BenchSupport.pad(name, 24) + String(format: " %15.2f   %17.2f%%", nanoseconds / 1000, nanoseconds / requestNanoseconds * 100))
        }
        if let path = BenchSupport.option("--json", in: arguments) {
            struct Report: Codable {
                var benchmark = "capture-cost"
                var requestNanoseconds: Double
                var phases: CapturePipelineBenchmark.Cost
            }
            try BenchSupport.writeReport(Report(requestNanoseconds: requestNanoseconds, phases: cost), to: path)
            print("wrote \(path)")
        }
        return 0
    }
}
