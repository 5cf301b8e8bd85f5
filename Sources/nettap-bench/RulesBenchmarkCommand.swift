import Foundation
import NetTapCapture
import NetTapRules

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `nettap-bench rules`: what evaluating 1, 100 and 1,000 non-matching rules costs per request,
/// as a share of a loopback request measured in the same run, and end to end through the
/// URLProtocol path with those rules in force versus none.
enum RulesBenchmarkCommand {
    static func run(arguments: [String]) async throws -> Int32 {
        let counts = [0, 1, 100, 1_000]
        let target = try LoopbackTarget.start(preferNginx: !arguments.contains("--builtin-server"))
        defer { target.stop() }
        print("rules benchmark; server: \(target.description); machine: \(BenchSupport.machineDescription())")

        let requestNanoseconds = try await BenchSupport.sequentialRequestNanoseconds(url: target.url)
        print(String(format: "loopback request (plain URLSession, sequential): %.1f µs", requestNanoseconds / 1000))

        struct Row: Codable { var rules: Int; var evaluationNanoseconds: Double; var shareOfRequest: Double; var requestsPerSecond: Double; var ratioToNoRules: Double }
        var rows: [Row] = []
        var baseline = 0.0
        print("")
        print("rules   ns/eval   share of a request   protocol path req/s   vs no rules")
        for count in counts {
            let evaluation = RulesBenchmark.measureEvaluation(ruleCount: count, iterations: count >= 1_000 ? 20_000 : 200_000)
            try RulesRuntime.shared.install(RulesBenchmark.nonMatchingRuleSet(count: count))
            let rate = try await endToEnd(url: target.url)
            RulesRuntime.shared.clear()
            if count == 0 { baseline = rate }
            let row = Row(rules: count, evaluationNanoseconds: evaluation, shareOfRequest: evaluation / requestNanoseconds,
                          requestsPerSecond: rate, ratioToNoRules: rate / max(baseline, 1))
            rows.append(row)
            print(BenchSupport.pad(String(count), 5) + String(format: " %9.0f   %17.2f%%   %19.0f   %11.2f", evaluation, row.shareOfRequest * 100, rate, row.ratioToNoRules))
        }
        let thousand = rows.last?.shareOfRequest ?? 1
        print(String(format: "\n1,000 non-matching rules cost %.2f%% of a loopback request (target < 5%%)", thousand * 100))
        if let path = BenchSupport.option("--json", in: arguments) {
            struct Report: Codable { var benchmark = "rules"; var requestNanoseconds: Double; var rows: [Row] }
            try BenchSupport.writeReport(Report(requestNanoseconds: requestNanoseconds, rows: rows), to: path)
        }
        return 0
    }

    /// Requests per second through the URLProtocol path, 8 workers each with its own session.
    private static func endToEnd(url: URL) async throws -> Double {
        let clients = (0..<8).map { _ in BenchClient(variant: "protocol") }
        let perWorker = 300
        _ = try await fetchAll(clients: clients, url: url, perWorker: 20)
        let start = DispatchTime.now().uptimeNanoseconds
        try await fetchAll(clients: clients, url: url, perWorker: perWorker)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return Double(perWorker * clients.count) / seconds
    }

    private static func fetchAll(clients: [BenchClient], url: URL, perWorker: Int) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in clients {
                group.addTask {
                    for _ in 0..<perWorker { _ = try await client.fetch(url) }
                }
            }
            try await group.waitForAll()
        }
    }
}
