import Foundation
import NetTapCapture
import NetTapCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `nettap-bench capture`: requests per second through plain URLSession, NetTapSession, the
/// URLProtocol path and a naive one-session-per-request URLProtocol, side by side in one run.
///
/// Each variant runs in its own child process (so that peak memory is its own), in many short
/// rounds that interleave the variants. A small cloud machine drifts by tens of percent from one
/// second to the next, so each round's ratios are taken within the round (where drift hits every
/// variant alike), and the median round is reported: the median of those ratios, and the median
/// requests per second of each variant; the interquartile range of the per-round ratios shows how
/// far to trust the median.
///
/// `--control` adds a variant that is plain URLSession again, whose ratio to plain is 1 when the
/// order is fair and the machine quiet: its distance from 1 is how far this run's other ratios can
/// be off through noise alone. `--attribution` adds the session with no sink (it records, and
/// the hub releases what it recorded without building exchanges) and with capture switched off, to
/// split the session's cost. `--concurrency 1,8,64` measures several levels of concurrency in the
/// same rounds. `--json` keeps every round's ratios, so that runs can be pooled.
enum CaptureBenchmark {
    static let variants = ["plain", "session", "protocol", "naive"]

    struct Result: Codable {
        var name: String
        var requestsPerSecond: Double
        var peakMemoryBytes: Int
        /// Median over rounds of this variant's rate divided by plain URLSession's in the same round.
        var ratioToPlain: Double
        /// The first and third quartiles of those per-round ratios.
        var ratioQuartiles: [Double]
        /// A 95 % bootstrap interval for `ratioToPlain`: where the median of as many rounds would
        /// fall in most repeats of the run.
        var ratioInterval: [Double]
        /// Every round's ratio, in round order, for pooling several runs.
        var roundRatios: [Double]
    }

    /// One concurrency level's figures.
    struct Level: Codable {
        var concurrency: Int
        /// Median over rounds of the protocol path's rate divided by the naive one's.
        var protocolOverNaive: Double
        var variants: [Result]
    }

    static func run(arguments: [String]) async throws -> Int32 {
        let requests = try BenchSupport.positiveInteger("--requests", in: arguments) ?? 2_000
        let levels = try BenchSupport.positiveIntegers("--concurrency", in: arguments) ?? [8]
        if let repeated = levels.first(where: { level in levels.count { $0 == level } > 1 }) {
            throw BenchUsageError("--concurrency: \(repeated) is given more than once")
        }
        let rounds = try BenchSupport.positiveInteger("--rounds", in: arguments) ?? 20
        let variants = Self.variants + (arguments.contains("--control") ? ["control"] : [])
            + (arguments.contains("--attribution") ? ["session-nosink", "session-off"] : [])
        let target = try LoopbackTarget.start(preferNginx: !arguments.contains("--builtin-server"))
        defer { target.stop() }
        let levelList = levels.map(String.init).joined(separator: ", ")
        print("capture benchmark: \(requests) requests x \(rounds) rounds, concurrency \(levelList)")
        print("server: \(target.description) at \(target.url.absoluteString)")
        print("machine: \(BenchSupport.machineDescription())")

        // Every round runs every level, so that the machine's drift over the run falls on all
        // levels alike and their figures can be set beside each other.
        var samples = Array(repeating: LevelSamples(), count: levels.count)
        for round in 1...rounds {
            for (index, concurrency) in levels.enumerated() {
                var line = "  round \(round)" + (levels.count > 1 ? ", concurrency \(concurrency):" : ":")
                var roundRates: [String: Double] = [:]
                for variant in Self.roundOrder(variants, round: round) {
                    let outcome = try runWorker(variant: variant, url: target.url, requests: requests, concurrency: concurrency)
                    roundRates[variant] = outcome.rate
                    samples[index].add(variant: variant, rate: outcome.rate, peak: outcome.peak)
                    line += " " + variant + String(format: " %.0f", outcome.rate)
                }
                samples[index].endRound(roundRates, variants: variants)
                print(line)
            }
        }
        let results = zip(levels, samples).map { concurrency, measured in
            measured.level(concurrency: concurrency, variants: variants)
        }
        for level in results {
            report(level, rounds: rounds, showsLevel: levels.count > 1)
        }

        if let path = BenchSupport.option("--json", in: arguments) {
            struct Report: Codable {
                var benchmark = "capture"
                var requests: Int
                var rounds: Int
                var server: String
                var machine: String
                /// The first level's figures, at the top level as in reports of one level.
                var concurrency: Int
                var protocolOverNaive: Double
                var variants: [Result]
                /// Every level's figures, in the order asked for.
                var levels: [Level]
            }
            guard let first = results.first else { return 0 }
            let report = Report(
                requests: requests, rounds: rounds, server: target.description, machine: BenchSupport.machineDescription(),
                concurrency: first.concurrency, protocolOverNaive: first.protocolOverNaive, variants: first.variants,
                levels: results)
            try BenchSupport.writeReport(report, to: path)
            print("wrote \(path)")
        }
        return 0
    }

    /// What the rounds of one concurrency level measured.
    private struct LevelSamples {
        var rates: [String: [Double]] = [:]
        var ratios: [String: [Double]] = [:]
        var memory: [String: Int] = [:]

        mutating func add(variant: String, rate: Double, peak: Int) {
            rates[variant, default: []].append(rate)
            memory[variant] = max(memory[variant] ?? 0, peak)
        }

        mutating func endRound(_ roundRates: [String: Double], variants: [String]) {
            let plain = roundRates["plain"] ?? 1
            for variant in variants { ratios[variant, default: []].append((roundRates[variant] ?? 0) / plain) }
            ratios["protocol/naive", default: []].append((roundRates["protocol"] ?? 0) / (roundRates["naive"] ?? 1))
        }

        func level(concurrency: Int, variants: [String]) -> Level {
            let results = variants.map { name in
                let roundRatios = ratios[name] ?? []
                return Result(
                    name: name, requestsPerSecond: BenchSupport.median(rates[name] ?? []), peakMemoryBytes: memory[name] ?? 0,
                    ratioToPlain: BenchSupport.median(roundRatios),
                    ratioQuartiles: [0.25, 0.75].map { BenchSupport.quantile($0, of: roundRatios) },
                    ratioInterval: BenchSupport.medianInterval(of: roundRatios),
                    roundRatios: roundRatios)
            }
            return Level(
                concurrency: concurrency, protocolOverNaive: BenchSupport.median(ratios["protocol/naive"] ?? []),
                variants: results)
        }
    }

    private static func report(_ level: Level, rounds: Int, showsLevel: Bool) {
        print("")
        if showsLevel { print("concurrency \(level.concurrency):") }
        let nameWidth = max(9, (level.variants.map(\.name.count).max() ?? 0) + 1)
        print(BenchSupport.pad("variant", nameWidth)
            + "   req/s   vs plain   95 % interval   middle half of rounds   peak memory   (medians over \(rounds) rounds)")
        for result in level.variants {
            print(BenchSupport.pad(result.name, nameWidth)
                + String(format: " %7.0f   %7.2f    %5.2f - %5.2f      %5.2f - %5.2f      ",
                    result.requestsPerSecond, result.ratioToPlain, result.ratioInterval[0], result.ratioInterval[1],
                    result.ratioQuartiles[0], result.ratioQuartiles[1])
                + BenchSupport.formatBytes(result.peakMemoryBytes))
        }
        let ratio = { (name: String) in level.variants.first { $0.name == name }?.ratioToPlain ?? 0 }
        print("")
        print(String(format: "session/plain  %.2f (target >= 0.95)", ratio("session")))
        print(String(format: "protocol/plain %.2f (target >= 0.80)", ratio("protocol")))
        print(String(format: "protocol/naive %.2f (target >= 1.50)", level.protocolOverNaive))
        if level.variants.contains(where: { $0.name == "control" }) {
            print(String(format: "control/plain  %.2f (the same client twice: how far noise alone moves a ratio)", ratio("control")))
        }
    }

    /// The order of the variants in round `round` (from 1): the naive one last, the others rotated
    /// one place each round and reversed every other cycle of rotations.
    ///
    /// The naive variant opens and drops a connection per request, and whatever runs right after
    /// it may pay for that. A plain rotation of the list put plain URLSession, the baseline, right
    /// after it in three rounds of four, so any such cost fell on the baseline alone (measured
    /// directly on 2026-12-07 it was within the noise: BENCHMARKS.md, capture). Now the variant
    /// after it is the next round's first, which every other variant is in turn, and the reversal
    /// makes each of them follow each of its neighbours in the list as often as it precedes it.
    static func roundOrder(_ variants: [String], round: Int) -> [String] {
        let others = variants.filter { $0 != "naive" }
        guard !others.isEmpty else { return variants }
        let shift = (round - 1) % others.count
        var order = Array(others[shift...] + others[..<shift])
        if ((round - 1) / others.count) % 2 == 1 { order.reverse() }
        return order + variants.filter { $0 == "naive" }
    }

    /// Runs one variant in a child process and reads its figures.
    static func runWorker(variant: String, url: URL, requests: Int, concurrency: Int) throws -> (rate: Double, peak: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        if !FileManager.default.isExecutableFile(atPath: process.executableURL?.path ?? "") {
            process.executableURL = Bundle.main.executableURL
        }
        process.arguments = ["capture-worker", variant, url.absoluteString, String(requests), String(concurrency)]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        struct WorkerResult: Codable { var rate: Double; var peak: Int; var errors: Int }
        guard process.terminationStatus == 0,
            let result = try? JSONDecoder().decode(WorkerResult.self, from: output)
        else {
            throw BenchError("the \(variant) worker failed (status \(process.terminationStatus)): \(String(decoding: output, as: UTF8.self))")
        }
        if result.errors > 0 {
            throw BenchError("the \(variant) worker saw \(result.errors) failed requests")
        }
        return (result.rate, result.peak)
    }

    /// The child side: issue `requests` GETs with `concurrency` workers, each with its own session
    /// and one request at a time, and print {rate, peak, errors} as JSON.
    static func worker(arguments: [String]) async -> Int32 {
        guard arguments.count >= 4, let url = URL(string: arguments[1]), let requests = Int(arguments[2]),
            let concurrency = Int(arguments[3])
        else {
            FileHandle.standardError.write(Data("usage: nettap-bench capture-worker VARIANT URL REQUESTS CONCURRENCY\n".utf8))
            return 2
        }
        let variant = arguments[0]
        let sink = RingBufferSink(capacity: 1_000)
        // Cost attribution (BENCHMARKS.md, `--attribution`): the session with no sink records but
        // builds no exchanges; with capture off, only NetTap's plumbing is left. The environment
        // variables do the same for any variant.
        let environment = ProcessInfo.processInfo.environment
        if environment["NETTAP_BENCH_NO_SINK"] == nil, variant != "session-nosink" { NetTap.shared.addSink(sink) }
        if environment["NETTAP_BENCH_CAPTURE_OFF"] != nil || variant == "session-off" { NetTap.shared.isEnabled = false }
        let clients = (0..<concurrency).map { _ in BenchClient(variant: variant) }
        let perWorker = max(1, requests / concurrency)
        // Warm up connections and caches outside the timed part.
        _ = await run(clients: clients, url: url, perWorker: 25)
        let start = DispatchTime.now()
        let errors = await run(clients: clients, url: url, perWorker: perWorker)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        await NetTap.shared.drain()
        let rate = Double(perWorker * concurrency) / seconds
        print("{\"rate\": \(rate), \"peak\": \(BenchSupport.peakMemoryBytes()), \"errors\": \(errors)}")
        return 0
    }

    private static func run(clients: [BenchClient], url: URL, perWorker: Int) async -> Int {
        await withTaskGroup(of: Int.self) { group in
            for client in clients {
                group.addTask {
                    var errors = 0
                    for _ in 0..<perWorker {
                        do {
                            let data = try await client.fetch(url)
                            if data.isEmpty { errors += 1 }
                        } catch {
                            errors += 1
                        }
                    }
                    return errors
                }
            }
            return await group.reduce(0, +)
        }
    }
}

/// One benchmark worker's client, built for a variant.
final class BenchClient: Sendable {
    private let session: URLSession?
    private let tapSession: NetTapSession?

    init(variant: String) {
        let configuration = URLSessionConfiguration.ephemeral
        switch variant {
        case "session", "session-nosink", "session-off":
            tapSession = NetTapSession(configuration: configuration)
            session = nil
        case "protocol":
            NetTap.enable(on: configuration)
            session = URLSession(configuration: configuration)
            tapSession = nil
        case "control":
            // The same as plain: the benchmark's own noise floor (`--control`).
            session = URLSession(configuration: configuration)
            tapSession = nil
        case "plain-delegate":
            // Attribution only (BENCHMARKS.md): plain URLSession with a delegate that does nothing,
            // the cost corelibs adds for any session delegate, before NetTap does any work.
            session = URLSession(configuration: configuration, delegate: IdleSessionDelegate(), delegateQueue: nil)
            tapSession = nil
        case "naive":
            configuration.protocolClasses = [NaiveForwardingProtocol.self] + (configuration.protocolClasses ?? [])
            session = URLSession(configuration: configuration)
            tapSession = nil
        default:
            session = URLSession(configuration: configuration)
            tapSession = nil
        }
    }

    func fetch(_ url: URL) async throws -> Data {
        if let tapSession { return try await tapSession.data(from: url).0 }
        guard let session else { return Data() }
        return try await session.data(from: url).0
    }
}

/// A session delegate that implements nothing (the protocols' defaults answer every call).
final class IdleSessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
