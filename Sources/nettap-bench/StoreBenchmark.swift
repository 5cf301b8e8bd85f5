import Foundation
import NetTapCore
import NetTapStore

/// `nettap-bench store [--json FILE] [--count N] [--query-rows N] [--rounds N]`
///
/// 1. Ingest: N exchanges through `StoreSink` (receive ... flush), against a baseline of raw
///    batched prepared-statement inserts of the same rows (the same column values and body bytes,
///    encoded beforehand, into the same schema, SQLite checkpointing as it does by default), in
///    the same run. Reports both and the ratio; and the baseline once more with the store's
///    background checkpointer, to show what that part of the sink's design is worth on its own.
/// 2. Query: the newest-100 page under several filters on a store of `--query-rows` exchanges
///    (built once in a temporary directory): median and p95 of repeated queries.
/// 3. Read: exchanges/s decoded by `forEach`, and peak memory (VmHWM).
enum StoreBenchmark {
    struct Options {
        var jsonPath: String?
        var count = 100_000
        var queryRows = 1_000_000
        var rounds = 3
        /// Keep the stores in this directory instead of a temporary one that is removed.
        var keepDirectory: String?
        /// Ingest through one side only (`sink`, `baseline` or `lent`), to profile it alone with `perf`;
        /// or `writer`: the sink's write path (`ExchangeStore.writeBatch`) on one thread, from records
        /// encoded beforehand, to tell its own cost from what running beside the encoder adds.
        var only: String?
    }

    /// What `--only` can measure alone.
    static let sides = ["sink", "baseline", "lent", "writer"]

    static let usage = "usage: nettap-bench store [--json FILE] [--count N] [--query-rows N] [--rounds N] [--keep DIR] [--only \(sides.joined(separator: "|"))]"

    static func run(_ arguments: [String]) -> Int32 {
        let options: Options
        do {
            options = try parse(arguments)
        } catch {
            FileHandle.standardError.write(Data("nettap-bench store: \(error)\n\(usage)\n".utf8))
            return 2
        }
        do {
            let results = try measure(options)
            if let path = options.jsonPath {
                let data = try JSONSerialization.data(withJSONObject: results, options: [.prettyPrinted, .sortedKeys])
                try data.write(to: URL(fileURLWithPath: path))
                print("wrote \(path)")
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("nettap-bench store: \(error)\n".utf8))
            return 1
        }
    }

    /// Reads the options; an error names the argument and what is wrong with it.
    static func parse(_ arguments: [String]) throws(BenchUsageError) -> Options {
        var options = Options()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let given = index + 1 < arguments.count ? arguments[index + 1] : nil
            func value() throws(BenchUsageError) -> String {
                guard let given else { throw BenchUsageError("\(argument) needs a value") }
                return given
            }
            func wholeNumber(atLeast minimum: Int) throws(BenchUsageError) -> Int {
                let text = try value()
                guard let number = Int(text), number >= minimum else {
                    let kind = minimum > 0 ? "a positive whole number" : "a whole number, 0 or more"
                    throw BenchUsageError("\(argument): '\(text)' is not \(kind)")
                }
                return number
            }
            switch argument {
            case "--json": options.jsonPath = try value()
            case "--count": options.count = try wholeNumber(atLeast: 1)
            case "--query-rows": options.queryRows = try wholeNumber(atLeast: 0)
            case "--rounds": options.rounds = try wholeNumber(atLeast: 1)
            case "--keep": options.keepDirectory = try value()
            case "--only":
                let side = try value()
                guard sides.contains(side) else {
                    throw BenchUsageError("--only: '\(side)' is not one of \(sides.joined(separator: ", "))")
                }
                options.only = side
            default:
                throw BenchUsageError("unknown argument '\(argument)'")
            }
            index += 2
        }
        return options
    }

    private static func measure(_ options: Options) throws -> [String: Any] {
        let directory = options.keepDirectory.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("nettap-bench-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { if options.keepDirectory == nil { try? FileManager.default.removeItem(at: directory) } }
        var results: [String: Any] = [:]
        #if DEBUG
            print("note: debug build; run `swift run -c release nettap-bench store` for real figures")
        #endif

        // 1. Queries and streaming reads on a large store, built in chunks (memory stays flat).
        if options.queryRows > 0 {
            resetPeakMemory()
            let large = directory.appendingPathComponent("large.sqlite").path
            results["queries"] = try measureQueries(rows: options.queryRows, path: large)
            try measureRead(path: large, limit: 200_000, into: &results)
            results["peakMemoryQueriesKiB"] = reportPeak("building, querying and reading \(options.queryRows) exchanges")
            // Ingest should not run while the kernel writes this 1.6 GB file back to disk on the
            // same two cores: removing it drops its dirty pages (as between ingest rounds).
            if options.keepDirectory == nil { removeStore(large) }
        }

        // 2. Ingest: sink against the raw baseline (holds the generated exchanges in memory).
        resetPeakMemory()
        try measureIngest(options, directory: directory, into: &results)
        if options.queryRows == 0, options.only == nil {
            try measureRead(path: directory.appendingPathComponent("sink-\(options.rounds - 1).sqlite").path, limit: nil, into: &results)
        }
        return results
    }

    private static func measureIngest(_ options: Options, directory: URL, into results: inout [String: Any]) throws {
        var workload = StoreBenchmarkWorkload(seed: 1)
        let exchanges = (0 ..< options.count).map { workload.exchange($0) }
        let encodeStart = DispatchTime.now()
        let baselineRows = try BaselineRows(exchanges)
        let encodeRate = Double(options.count) / seconds(since: encodeStart)
        print(String(format: "encoding alone (column values, SHA-256, zlib; one thread): %.0f exchanges/s", encodeRate))
        results["encodePerSecond"] = encodeRate
        print("ingest: \(options.count) exchanges, \(baselineRows.distinctBodies) distinct bodies, \(options.rounds) rounds")
        var sinkRates: [Double] = []
        var baselineRates: [Double] = []
        let transactionSize = sinkConfiguration(count: options.count).maxBatchSize
        print("  both write transactions of up to \(transactionSize) exchanges (StoreSink.Configuration.maxBatchSize)")
        var lentRates: [Double] = []
        // CPU time of the whole process (every thread) per exchange, in microseconds.
        var sinkCPU: [Double] = [], baselineCPU: [Double] = [], lentCPU: [Double] = []
        /// Runs one ingest (`body` returns its seconds): exchanges/s and CPU µs per exchange.
        func measured(_ body: () throws -> Double) rethrows -> (rate: Double, cpu: Double) {
            let cpuStart = ProcessMemory.cpuSeconds()
            let seconds = try body()
            return (Double(options.count) / seconds, (ProcessMemory.cpuSeconds() - cpuStart) * 1e6 / Double(options.count))
        }
        if let only = options.only {
            for round in 0 ..< options.rounds {
                let path = directory.appendingPathComponent("\(only)-\(round).sqlite").path
                let run = try measured {
                    switch only {
                    case "sink": try ingestThroughSink(exchanges, path: path).seconds
                    case "writer": try writeEncoded(baselineRows.records, path: path, transactionSize: transactionSize)
                    default: try baselineRows.insert(into: path, batchSize: transactionSize, backgroundCheckpoints: only == "lent")
                    }
                }
                print(String(format: "  round %d: %@ %.0f/s (CPU %.1f us each)", round + 1, only as NSString, run.rate, run.cpu))
                if options.keepDirectory == nil { removeStore(path) }
            }
            return
        }
        for round in 0 ..< options.rounds {
            let baseline = try measured {
                try baselineRows.insert(
                    into: directory.appendingPathComponent("baseline-\(round).sqlite").path, batchSize: transactionSize,
                    backgroundCheckpoints: false)
            }
            baselineRates.append(baseline.rate)
            baselineCPU.append(baseline.cpu)
            let lent = try measured {
                try baselineRows.insert(
                    into: directory.appendingPathComponent("baseline-bg-\(round).sqlite").path, batchSize: transactionSize,
                    backgroundCheckpoints: true)
            }
            lentRates.append(lent.rate)
            lentCPU.append(lent.cpu)
            var batches = 0
            let sink = try measured {
                let ingest = try ingestThroughSink(exchanges, path: directory.appendingPathComponent("sink-\(round).sqlite").path)
                batches = ingest.batches
                return ingest.seconds
            }
            sinkRates.append(sink.rate)
            sinkCPU.append(sink.cpu)
            // The next round should not pay for writing this one's files back to disk: removing
            // them drops their dirty pages, which the kernel would otherwise flush on the same two
            // cores while the next round runs. The last sink file stays for the read measurement.
            if options.keepDirectory == nil {
                for name in ["baseline-\(round)", "baseline-bg-\(round)"] + (round < options.rounds - 1 ? ["sink-\(round)"] : []) {
                    removeStore(directory.appendingPathComponent("\(name).sqlite").path)
                }
            }
            print(String(format: "  round %d: sink %.0f/s in %d transactions (CPU %.1f us each), raw baseline %.0f/s (CPU %.1f us), raw with background checkpoints %.0f/s (CPU %.1f us)",
                         round + 1, sink.rate, batches, sink.cpu, baseline.rate, baseline.cpu, lent.rate, lent.cpu))
        }
        // The sink's CPU includes encoding (column values, SHA-256, zlib), which the baseline did beforehand.
        let median = BenchSupport.median
        print(String(format: "CPU per exchange, all threads, median of rounds: sink %.1f us, raw baseline %.1f us, raw with background checkpoints %.1f us",
                     median(sinkCPU), median(baselineCPU), median(lentCPU)))
        results["ingestSinkCPUMicroseconds"] = median(sinkCPU)
        results["ingestBaselineCPUMicroseconds"] = median(baselineCPU)
        results["ingestBaselineBackgroundCheckpointsCPUMicroseconds"] = median(lentCPU)
        let sinkBest = sinkRates.max() ?? 0
        let lentBest = lentRates.max() ?? 0
        print(String(format: "raw inserts with the store's background checkpointer: %.0f exchanges/s (best of %d); sink / that: %.2f",
                     lentBest, options.rounds, lentBest > 0 ? sinkBest / lentBest : 0))
        results["ingestBaselineBackgroundCheckpointsPerSecond"] = lentBest
        let baselineBest = baselineRates.max() ?? 0
        let ratio = baselineBest > 0 ? sinkBest / baselineBest : 0
        print(String(format: "ingest through StoreSink: %.0f exchanges/s (best of %d)", sinkBest, options.rounds))
        print(String(format: "raw prepared-statement baseline (SQLite's own checkpoints): %.0f exchanges/s (best of %d)", baselineBest, options.rounds))
        print(String(format: "ratio sink/baseline: %.2f (target >= 0.70), sink target >= 50000/s", ratio))
        results["ingestSinkPerSecond"] = sinkBest
        results["ingestBaselinePerSecond"] = baselineBest
        results["ingestRatio"] = ratio
        results["ingestCount"] = options.count
        results["ingestSinkRounds"] = sinkRates
        results["ingestBaselineRounds"] = baselineRates
        let medianPaired = median(zip(sinkRates, baselineRates).map { $0 / $1 })
        print(String(format: "median of the per-round ratios: %.2f (each round runs both back to back)", medianPaired))
        results["ingestRatioMedianPaired"] = medianPaired
        results["peakMemoryIngestKiB"] = reportPeak("ingest (holds the \(options.count) generated exchanges and the baseline's rows)")
    }

    /// Exchanges/s decoded by `forEach`, bodies included, oldest first (as an export reads them).
    private static func measureRead(path: String, limit: Int?, into results: inout [String: Any]) throws {
        let store = try ExchangeStore(path: path)
        var filter = ExchangeFilter()
        if let limit, let first = try store.exchanges(limit: 1, order: .oldestFirst).exchanges.first {
            // The first `limit` exchanges (they are 10 ms apart in the workload).
            filter.until = first.startedAt.addingTimeInterval(Double(limit) * 0.01)
        }
        let start = DispatchTime.now()
        var read = 0
        var bodyBytes = 0
        try store.forEach(matching: filter, order: .oldestFirst) { exchange in
            read += 1
            bodyBytes += exchange.response?.body?.data.count ?? 0
        }
        let elapsed = seconds(since: start)
        print(String(format: "read with forEach (bodies included): %.0f exchanges/s (%d exchanges, %d body bytes)", Double(read) / elapsed, read, bodyBytes))
        results["readPerSecond"] = Double(read) / elapsed
    }

    /// Removes a store file and its WAL and shared-memory files.
    private static func removeStore(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// The sink as an app configures it (default batching), with room for every exchange.
    static func sinkConfiguration(count: Int) -> StoreSink.Configuration {
        StoreSink.Configuration(pendingLimit: count, retention: .unlimited)
    }

    private static func ingestThroughSink(_ exchanges: [Exchange], path: String) throws -> (seconds: Double, batches: Int) {
        let store = try ExchangeStore(path: path)
        let sink = StoreSink(store: store, configuration: sinkConfiguration(count: exchanges.count))
        let start = DispatchTime.now()
        for exchange in exchanges { sink.receive(.finished(exchange)) }
        try sink.flush()
        let elapsed = seconds(since: start)
        let counters = sink.counters
        guard counters.written == exchanges.count, counters.dropped == 0, try store.count() == exchanges.count else {
            throw BenchmarkFailure("sink stored \(counters.written) of \(exchanges.count) (dropped \(counters.dropped), failed \(counters.failed))")
        }
        return (elapsed, counters.batches)
    }

    /// The sink's write path alone: `records` in chunks of the sink's `batchSize`, transactions of
    /// its `maxBatchSize`, on this thread.
    private static func writeEncoded(_ records: [ExchangeRecord], path: String, transactionSize: Int) throws -> Double {
        let store = try ExchangeStore(path: path)
        let chunkSize = sinkConfiguration(count: records.count).batchSize
        let start = DispatchTime.now()
        var offset = 0
        var written = 0
        while offset < records.count {
            let transactionEnd = offset + transactionSize
            written += try store.writeBatch {
                guard offset < min(records.count, transactionEnd) else { return nil }
                let chunk = Array(records[offset ..< min(records.count, offset + chunkSize)])
                offset += chunk.count
                return (chunk, 0)
            }
        }
        let elapsed = seconds(since: start)
        guard written == records.count else { throw BenchmarkFailure("writer stored \(written) of \(records.count)") }
        return elapsed
    }

    private static func measureQueries(rows: Int, path: String) throws -> [String: Any] {
        let store = try ExchangeStore(path: path)
        var workload = StoreBenchmarkWorkload(seed: 2)
        let buildStart = DispatchTime.now()
        var built = 0
        while built < rows {
            let batch = (built ..< min(rows, built + 20_000)).map { workload.exchange($0) }
            try store.insert(batch)
            built += batch.count
        }
        let buildSeconds = seconds(since: buildStart)
        let stats = try store.stats()
        print(String(format: "query store: %d exchanges built with insert() in %.1f s (%.0f/s), %d MiB used", rows, buildSeconds, Double(rows) / buildSeconds, stats.usedBytes >> 20))
        let middle = try store.exchanges(limit: 1, after: nil).nextCursor.map { cursor in
            ExchangeCursor(startedAt: cursor.startedAt - Double(rows / 2) * 0.01, rowid: Int64(rows / 2))
        }
        let cases: [(String, ExchangeFilter, ExchangeCursor?)] = [
            ("no filter", ExchangeFilter(), nil),
            ("host", ExchangeFilter(host: "pay.example.com"), nil),
            ("status 500-599", ExchangeFilter(statusRange: 500 ... 599), nil),
            ("error timeout", ExchangeFilter(errorCategory: .timeout), nil),
            ("label screen=checkout", ExchangeFilter(labels: ["screen": "checkout"]), nil),
            ("URL contains /orders/", ExchangeFilter(urlContains: "/orders/"), nil),
            ("host + 5xx + label", ExchangeFilter(host: "api.example.com", statusRange: 500 ... 599, labels: ["screen": "feed"]), nil),
            ("failures only", ExchangeFilter(failuresOnly: true), nil),
            ("method DELETE", ExchangeFilter(method: "delete"), nil),
            ("endpoint /v2/orders/{id}", ExchangeFilter(urlTemplate: "/v2/orders/{id}"), nil),
            ("host, page from the middle", ExchangeFilter(host: "api.example.com"), middle),
            ("last hour", ExchangeFilter(since: Date(timeIntervalSince1970: 1_764_000_000 + Double(rows) * 0.01 - 3600)), nil),
        ]
        var results: [String: Any] = ["rows": rows, "buildPerSecond": Double(rows) / buildSeconds]
        print("newest-100 page latency on \(rows) exchanges (bodies included), 30 runs each:")
        for (name, filter, cursor) in cases {
            _ = try store.exchanges(matching: filter, limit: 100, after: cursor)  // warm up
            var timings: [Double] = []
            var returned = 0
            for _ in 0 ..< 30 {
                let start = DispatchTime.now()
                returned = try store.exchanges(matching: filter, limit: 100, after: cursor).exchanges.count
                timings.append(seconds(since: start) * 1000)
            }
            timings.sort()
            let median = timings[timings.count / 2]
            let p95 = timings[min(timings.count - 1, Int((Double(timings.count) * 0.95).rounded(.up)) - 1)]
            print(String(format: "  %-28@ median %7.2f ms   p95 %7.2f ms   (%d rows)", name as NSString, median, p95, returned))
            results[name] = ["medianMs": median, "p95Ms": p95, "rows": returned]
        }
        for (name, body) in [
            ("count(host)", { _ = try store.count(matching: ExchangeFilter(host: "pay.example.com")) }),
            ("summary(all)", { _ = try store.summary() }),
            ("stats", { _ = try store.stats() }),
        ] as [(String, () throws -> Void)] {
            let start = DispatchTime.now()
            try body()
            let ms = seconds(since: start) * 1000
            print(String(format: "  %-28@ %7.1f ms (once)", name as NSString, ms))
            results[name] = ["onceMs": ms]
        }
        return results
    }

    static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }

    /// Starts a new peak: Linux resets VmHWM to the current resident size when "5" is written to clear_refs.
    static func resetPeakMemory() {
        try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
    }

    /// Prints and returns the peak memory since the last reset.
    static func reportPeak(_ phase: String) -> Int {
        let peak = peakMemoryKiB()
        print("peak memory (VmHWM) during \(phase): \(peak.map { "\($0 / 1024) MiB" } ?? "unknown")")
        return peak ?? -1
    }

    /// VmHWM (peak resident set) from /proc/self/status, in KiB; nil where there is no /proc.
    static func peakMemoryKiB() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "")
        }
        return nil
    }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
