import Foundation
import NetTapCapture
import NetTapCore
import NetTapTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Many requests through each capture path on one shared session, mixing APIs and sizes:
/// no crash, no hang (a watchdog fails the test), no byte mismatch, nothing lost by capture.
@Suite(.serialized) struct StressTests {
    static let requestsPerRun = Int(ProcessInfo.processInfo.environment["NETTAP_STRESS_REQUESTS"] ?? "") ?? 20_000

    @Test(arguments: [CaptureVariant.urlProtocol, .session], [1, 8, 64])
    func manyRequestsStayCorrect(variant: CaptureVariant, concurrency: Int) async throws {
        try await StressRun(variant: variant, concurrency: concurrency, requests: Self.requestsPerRun).execute()
    }
}

/// The smaller stress run that `scripts/test` repeats under ThreadSanitizer.
@Suite(.serialized) struct ThreadSanitizerStress {
    @Test(arguments: [CaptureVariant.urlProtocol, .session])
    func concurrentCaptureHasNoDataRaces(variant: CaptureVariant) async throws {
        try await StressRun(variant: variant, concurrency: 8, requests: 1_500).execute()
    }
}

struct StressRun {
    let variant: CaptureVariant
    let concurrency: Int
    let requests: Int

    /// The request mix: mostly small bodies, some medium, a few large; four APIs.
    enum Kind: CaseIterable { case asyncGet, completionGet, delegateGet, upload }

    static func size(for index: Int) -> Int {
        switch index % 200 {
        case 0: return 1_048_576 + 3
        case 1...9: return 65_536 + index % 7
        default: return (index * 37) % 4_096
        }
    }

    func execute() async throws {
        let server = try ScenarioServer()
        defer { server.stop() }
        _ = CaptureCollector.shared
        let run = UUID().uuidString
        let delegate = StressDelegate()
        let requests = requests
        let concurrency = concurrency
        let client = variant.makeClient(delegate: delegate) { configuration in
            configuration.httpMaximumConnectionsPerHost = max(8, concurrency)
        }
        defer { client.finish() }
        let counter = Protected(0)
        let base = server.baseURL.absoluteString

        let mismatches = try await withTimeout(seconds: 600, "\(requests) requests via \(variant) at concurrency \(concurrency)") {
            await withTaskGroup(of: [String].self) { group in
                for _ in 0..<concurrency {
                    group.addTask {
                        var problems: [String] = []
                        while true {
                            let index = counter.withLock { value -> Int in
                                defer { value += 1 }
                                return value
                            }
                            if index >= requests { break }
                            if let problem = await Self.one(index: index, client: client, delegate: delegate, base: base, run: run) {
                                problems.append(problem)
                            }
                        }
                        return problems
                    }
                }
                return await group.reduce(into: []) { $0 += $1 }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches, first: \(mismatches.prefix(3))")

        // Every request was captured, with the bytes the app received (up to the cap).
        let captured = await CaptureCollector.shared.exchanges(run: run, count: requests, timeout: 60)
        #expect(captured.count == requests, "captured \(captured.count) of \(requests)")
        let cap = NetTap.shared.configuration.bodyCaptureLimit
        var captureProblems: [String] = []
        for exchange in captured {
            guard let response = exchange.response, response.statusCode == 200,
                let index = Int(exchange.request.url.split(separator: "i=").last?.prefix { $0.isNumber } ?? "")
            else {
                captureProblems.append("\(exchange.request.url): \(exchange.error?.message ?? "no response")")
                continue
            }
            let expected = ScenarioBytes.bytes(count: Self.size(for: index), seed: UInt64(index))
            if let body = response.body, body.unavailableReason == nil {
                if body.data != expected.prefix(cap) || body.size != Int64(expected.count) {
                    captureProblems.append("\(exchange.request.url): captured \(body.data.count)/\(body.size ?? -1) bytes")
                }
            } else if variant == .session {
                captureProblems.append("\(exchange.request.url): session path lost the body")
            }
        }
        #expect(captureProblems.isEmpty, "\(captureProblems.count) capture problems, first: \(captureProblems.prefix(3))")
    }

    /// One request of the mix; returns a description of what went wrong, or nil.
    static func one(index: Int, client: ScenarioClient, delegate: StressDelegate, base: String, run: String) async -> String? {
        let size = size(for: index)
        let kind = Kind.allCases[index % Kind.allCases.count]
        let expected = ScenarioBytes.bytes(count: size, seed: UInt64(index))
        let query = "seed=\(index)&i=\(index)&nettap-run=\(run)"
        var data: Data?
        var response: URLResponse?
        var error: Error?
        switch kind {
        case .asyncGet:
            do { (data, response) = try await client.data(for: URLRequest(url: URL(string: "\(base)/bytes/\(size)?\(query)")!)) } catch let failure { error = failure }
        case .completionGet:
            (data, response, error) = await withCheckedContinuation { continuation in
                client.dataTask(with: URLRequest(url: URL(string: "\(base)/chunked/\(size)?\(query)")!)) {
                    continuation.resume(returning: ($0, $1, $2))
                }.resume()
            }
        case .delegateGet:
            let task = client.dataTask(with: URLRequest(url: URL(string: "\(base)/bytes/\(size)?\(query)")!))
            (data, response, error) = await delegate.run(task)
        case .upload:
            var request = URLRequest(url: URL(string: "\(base)/echo/raw?\(query)")!)
            request.httpMethod = "POST"
            do { (data, response) = try await client.upload(for: request, from: expected) } catch let failure { error = failure }
        }
        if let error { return "#\(index) \(kind): \(error)" }
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { return "#\(index) \(kind): status \((response as? HTTPURLResponse)?.statusCode ?? -1)" }
        guard data == expected else { return "#\(index) \(kind): \(data?.count ?? -1) bytes, expected \(expected.count)" }
        return nil
    }
}
