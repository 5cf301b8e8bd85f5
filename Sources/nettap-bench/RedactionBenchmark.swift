import Foundation
import NetTapCore

/// `nettap-bench redaction`: what the default redaction policy costs per captured exchange. Every
/// capture pays it on the hub's queue before any sink sees the exchange, so it is set beside the
/// cost of one loopback request measured in the same run.
///
/// Two workloads: realistic API calls (the export benchmark's 64 kinds of exchange: a dozen
/// headers, JSON bodies of a few hundred bytes), and a 64 KiB JSON response of about 2,000 fields,
/// where every JSON key is checked against the policy.
enum RedactionBenchmark {
    struct Row: Codable {
        var workload: String
        var microsecondsPerExchange: Double
        var bodyMegabytesPerSecond: Double
        var shareOfRequest: Double
    }

    static func run(arguments: [String]) async throws -> Int32 {
        let target = try LoopbackTarget.start(preferNginx: !arguments.contains("--builtin-server"))
        defer { target.stop() }
        print("redaction benchmark; server: \(target.description); machine: \(BenchSupport.machineDescription())")
        let requestNanoseconds = try await BenchSupport.sequentialRequestNanoseconds(url: target.url)
        print(String(format: "loopback request (plain URLSession, sequential): %.1f µs", requestNanoseconds / 1000))

        let workloads: [(name: String, exchanges: [Exchange], iterations: Int)] = [
            ("API calls", unredacted(SyntheticExchanges.templates()), 200_000),
            ("64 KiB JSON response", [largeJSONExchange()], 2_000),
        ]
        let redactor = Redactor(policy: .default)
        var rows: [Row] = []
        print("")
        print("workload               µs per exchange   body MB/s   share of a request")
        for workload in workloads {
            let bodyBytes = workload.exchanges.reduce(0) { $0 + bodySize($1) } / workload.exchanges.count
            var best = Double.infinity
            var checksum = 0
            for _ in 0..<5 {
                let start = DispatchTime.now().uptimeNanoseconds
                for index in 0..<workload.iterations {
                    let redacted = redactor.redact(workload.exchanges[index % workload.exchanges.count])
                    checksum &+= redacted.response?.body?.data.count ?? 0
                }
                best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / Double(workload.iterations))
            }
            if checksum == 0 { throw BenchmarkError("redaction produced no bodies for \(workload.name)") }
            let row = Row(
                workload: workload.name, microsecondsPerExchange: best / 1000,
                bodyMegabytesPerSecond: Double(bodyBytes) / best * 1000, shareOfRequest: best / requestNanoseconds)
            rows.append(row)
            print(BenchSupport.pad(workload.name, 22) + String(format: " %15.2f   %9.1f   %17.2f%%",
                row.microsecondsPerExchange, row.bodyMegabytesPerSecond, row.shareOfRequest * 100))
        }
        if let path = BenchSupport.option("--json", in: arguments) {
            struct Report: Codable { var benchmark = "redaction"; var requestNanoseconds: Double; var rows: [Row] }
            try BenchSupport.writeReport(Report(requestNanoseconds: requestNanoseconds, rows: rows), to: path)
            print("wrote \(path)")
        }
        return 0
    }

    /// The templates carry an already redacted Authorization value; give them real-looking
    /// secrets, so that the redactor has the work it has on live traffic.
    private static func unredacted(_ exchanges: [Exchange]) -> [Exchange] {
        exchanges.enumerated().map { index, exchange in
            var exchange = exchange
            exchange.request.headers.transformValues { field in
                field.name == "Authorization" ? "Bearer eyJhbGciOiJIUzI1NiJ9.bench-\(index).signature" : nil
            }
            exchange.request.url += "&access_token=tok-\(index)-secret"
            return exchange
        }
    }

    /// A response of about 64 KiB: 250 records of eight fields, one of them named like a secret.
    private static func largeJSONExchange() -> Exchange {
        let records = (0..<250).map { index in
            #"{"id":\#(index),"name":"Customer \#(index)","email":"c\#(index)@example.test","createdAt":"2026-05-28T20:26:40Z","plan":"pro","seats":\#(index % 40),"region":"eu-west-1","apiKey":"ak_\#(index)_0123456789abcdef"}"#
        }
        let body = Data(("{\"customers\":[" + records.joined(separator: ",") + "]}").utf8)
        return Exchange(
            sessionID: "bench", startedAt: Date(timeIntervalSince1970: 1_780_000_000), duration: 0.05,
            request: CapturedRequest(method: "GET", url: "https://api.example.test/v2/customers?page=1",
                                     headers: ["Accept": "application/json"]),
            response: CapturedResponse(
                statusCode: 200, headers: ["Content-Type": "application/json", "Content-Length": String(body.count)],
                body: CapturedBody(data: body, contentType: "application/json"), httpVersion: "h2"),
            capturePath: .session)
    }

    private static func bodySize(_ exchange: Exchange) -> Int {
        (exchange.request.body?.data.count ?? 0) + (exchange.response?.body?.data.count ?? 0)
    }
}
