import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Small helpers shared by the benchmarks.
enum BenchSupport {
    /// One loopback request's wall time, sequential, through plain URLSession: the yardstick that
    /// per-request costs (rules, redaction) are set beside. 1,000 requests after 100 to warm up.
    static func sequentialRequestNanoseconds(url: URL) async throws -> Double {
        let plain = URLSession(configuration: .ephemeral)
        defer { plain.finishTasksAndInvalidate() }
        let sequential = 1_000
        for _ in 0..<100 { _ = try await plain.data(from: url) }
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<sequential { _ = try await plain.data(from: url) }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(sequential)
    }

    /// The process's peak resident memory in bytes (VmHWM on Linux, ru_maxrss elsewhere).
    static func peakMemoryBytes() -> Int {
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) {
            for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
                let digits = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
                return digits * 1024
            }
        }
        #if canImport(Darwin)
        var usage = rusage()
        getrusage(RUSAGE_SELF, &usage)
        return Int(usage.ru_maxrss)
        #else
        return 0
        #endif
    }

    /// Writes a benchmark's `--json` report: pretty-printed, keys sorted, so that runs diff cleanly.
    static func writeReport(_ report: some Encodable, to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(report).write(to: URL(fileURLWithPath: path))
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    static func formatBytes(_ bytes: Int) -> String {
        String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }

    /// The value after `name` in `arguments`, e.g. `--json FILE`.
    static func option(_ name: String, in arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    /// The positive integer after `name`, nil when the option is absent.
    static func positiveInteger(_ name: String, in arguments: [String]) throws(BenchUsageError) -> Int? {
        guard let values = try positiveIntegers(name, in: arguments) else { return nil }
        guard values.count == 1 else { throw BenchUsageError("\(name) takes one number, not a list") }
        return values[0]
    }

    /// The comma-separated positive integers after `name` (`--concurrency 1,8,64`), nil when the
    /// option is absent.
    static func positiveIntegers(_ name: String, in arguments: [String]) throws(BenchUsageError) -> [Int]? {
        guard let index = arguments.firstIndex(of: name) else { return nil }
        guard index + 1 < arguments.count else { throw BenchUsageError("\(name) needs a value") }
        let text = arguments[index + 1]
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        var values: [Int] = []
        for part in parts {
            guard let value = Int(part), value > 0 else {
                let whole = parts.count > 1 ? " in '\(text)'" : ""
                throw BenchUsageError("\(name): '\(part)'\(whole) is not a positive whole number")
            }
            values.append(value)
        }
        return values
    }

    /// A 95 % bootstrap interval for the median of `values`: the 2.5th and 97.5th percentiles of
    /// the medians of 2,000 resamples. The resampling is seeded, so the same rounds always give the
    /// same interval.
    static func medianInterval(of values: [Double]) -> [Double] {
        guard values.count > 1 else { return [median(values), median(values)] }
        var generator = SplitMix64(seed: 0x6E65_7474_6170)
        let medians = (0..<2_000).map { _ in
            median((0..<values.count).map { _ in values[Int.random(in: 0..<values.count, using: &generator)] })
        }
        return [quantile(0.025, of: medians), quantile(0.975, of: medians)]
    }

    static func median(_ values: [Double]) -> Double {
        quantile(0.5, of: values)
    }

    /// The `q` quantile (0...1) of `values`, interpolated between the two nearest ranks; 0 for none.
    static func quantile(_ q: Double, of values: [Double]) -> Double {
        let sorted = values.sorted()
        guard let first = sorted.first else { return 0 }
        let position = min(max(q, 0), 1) * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        let fraction = position - Double(lower)
        return sorted.count == 1 ? first : sorted[lower] + (sorted[upper] - sorted[lower]) * fraction
    }

    static func machineDescription() -> String {
        let cpus = ProcessInfo.processInfo.activeProcessorCount
        var model = "unknown CPU"
        if let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let line = info.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
            let colon = line.firstIndex(of: ":")
        {
            model = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let memory = ProcessInfo.processInfo.physicalMemory / (1 << 30)
        return "\(model), \(cpus) cores, \(memory) GiB"
    }
}

/// A small seeded generator, so that a benchmark's resampling is repeatable.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// A malformed option: the benchmark names it and exits with status 2, like a usage error.
struct BenchUsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
