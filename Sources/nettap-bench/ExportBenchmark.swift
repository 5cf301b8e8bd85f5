import Foundation
import NetTapCore
import NetTapExport

/// `nettap-bench export [--json FILE]`: HAR export throughput of 100,000 and 1,000,000 synthetic
/// exchanges streamed to a file, with peak resident memory (VmHWM) before and after each run to
/// show that memory stays flat, then the streaming import of the smaller file.
///
/// ```
/// swift run -c release nettap-bench export --json export.json
/// NETTAP_BENCH_EXPORT_COUNTS=10000 swift run -c release nettap-bench export   # a quick run
/// ```
///
/// Wall time is what a user waits; CPU time is reported too because on a shared machine other
/// work inflates the wall time but not the CPU time.
enum ExportBenchmark {
    struct Run: Codable {
        var exchanges: Int
        var seconds: Double
        /// User plus system CPU time: on a shared machine, the figure that other work does not inflate.
        var cpuSeconds: Double
        var bytes: Int64
        var exchangesPerSecond: Double
        var megabytesPerSecond: Double
        var peakRSSBeforeKB: Int
        var peakRSSAfterKB: Int
        var rssAfterKB: Int
        /// Resident memory not backed by a file: import maps the HAR file, whose pages count in
        /// RSS but are the kernel's page cache; this is the memory the reader itself holds.
        var anonymousRSSAfterKB: Int
    }

    struct Report: Codable {
        var benchmark = "export"
        var format = "HAR 1.2"
        var exports: [Run]
        var importRun: Run
    }

    static func run(arguments: [String]) throws {
        var jsonPath: String?
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--json":
                guard let path = iterator.next() else { throw BenchmarkError("--json needs a file path") }
                jsonPath = path
            default:
                throw BenchmarkError("unknown argument \(argument); usage: nettap-bench export [--json FILE]")
            }
        }

        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("nettap-bench-export-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let templates = SyntheticExchanges.templates()
        var exports: [Run] = []
        let counts = ProcessInfo.processInfo.environment["NETTAP_BENCH_EXPORT_COUNTS"]?
            .split(separator: ",").compactMap { Int($0) } ?? [100_000, 1_000_000]
        for count in counts {
            let url = directory.appendingPathComponent("export-\(count).har")
            let run = try export(count: count, templates: templates, to: url)
            exports.append(run)
            print(describe("export", run))
            if count != counts.first { try FileManager.default.removeItem(at: url) }
        }
        let importRun = try importFile(directory.appendingPathComponent("export-\(counts[0]).har"), expected: counts[0])
        print(describe("import", importRun))

        if let jsonPath {
            try BenchSupport.writeReport(Report(exports: exports, importRun: importRun), to: jsonPath)
        }
    }

    private static func export(count: Int, templates: [Exchange], to url: URL) throws -> Run {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw BenchmarkError("cannot create \(url.path)")
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let before = ProcessMemory.current()
        let cpuStart = ProcessMemory.cpuSeconds()
        let start = DispatchTime.now().uptimeNanoseconds
        let writer = HARWriter(sink: handle)
        try writer.begin()
        for index in 0..<count {
            try writer.write(SyntheticExchanges.exchange(index, templates: templates))
        }
        try writer.finish()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let cpuSeconds = ProcessMemory.cpuSeconds() - cpuStart
        let after = ProcessMemory.current()
        return Run(
            exchanges: count, seconds: seconds, cpuSeconds: cpuSeconds, bytes: writer.bytesWritten,
            exchangesPerSecond: Double(count) / seconds,
            megabytesPerSecond: Double(writer.bytesWritten) / 1_048_576 / seconds,
            peakRSSBeforeKB: before.peakKB, peakRSSAfterKB: after.peakKB, rssAfterKB: after.residentKB,
            anonymousRSSAfterKB: after.anonymousKB)
    }

    private static func importFile(_ url: URL, expected: Int) throws -> Run {
        let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64 ?? 0
        let before = ProcessMemory.current()
        let cpuStart = ProcessMemory.cpuSeconds()
        let start = DispatchTime.now().uptimeNanoseconds
        var count = 0
        try HARReader().read(contentsOf: url) { _ in count += 1 }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let cpuSeconds = ProcessMemory.cpuSeconds() - cpuStart
        guard count == expected else { throw BenchmarkError("imported \(count) exchanges, expected \(expected)") }
        let after = ProcessMemory.current()
        return Run(
            exchanges: count, seconds: seconds, cpuSeconds: cpuSeconds, bytes: size, exchangesPerSecond: Double(count) / seconds,
            megabytesPerSecond: Double(size) / 1_048_576 / seconds,
            peakRSSBeforeKB: before.peakKB, peakRSSAfterKB: after.peakKB, rssAfterKB: after.residentKB,
            anonymousRSSAfterKB: after.anonymousKB)
    }

    private static func describe(_ what: String, _ run: Run) -> String {
        func fixed(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }
        return "\(what) \(run.exchanges) exchanges: \(fixed(run.seconds, 2)) s (CPU \(fixed(run.cpuSeconds, 2)) s), "
            + "\(fixed(run.exchangesPerSecond, 0)) exchanges/s, \(fixed(run.megabytesPerSecond)) MB/s, "
            + "\(fixed(Double(run.bytes) / 1_048_576)) MB; peak RSS \(run.peakRSSBeforeKB / 1024) MB before, "
            + "\(run.peakRSSAfterKB / 1024) MB after (RSS now \(run.rssAfterKB / 1024) MB, "
            + "\(run.anonymousRSSAfterKB / 1024) MB of it not file-backed)"
    }
}

/// Peak and current resident memory of this process, from /proc/self/status (Linux).
struct ProcessMemory {
    var peakKB: Int
    var residentKB: Int
    var anonymousKB: Int

    static func current() -> ProcessMemory {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
            return ProcessMemory(peakKB: -1, residentKB: -1, anonymousKB: -1)
        }
        func field(_ name: String) -> Int {
            for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
                return Int(line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") ?? -1
            }
            return -1
        }
        return ProcessMemory(peakKB: field("VmHWM"), residentKB: field("VmRSS"), anonymousKB: field("RssAnon"))
    }

    /// User plus system CPU seconds this process has used.
    static func cpuSeconds() -> Double {
        var time = timespec()
        guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time) == 0 else { return -1 }
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// A failed benchmark run, in words.
struct BenchmarkError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Realistic small exchanges: API calls with a handful of headers, JSON bodies of a few hundred
/// bytes, full timing metrics on most, a few failures and binary images.
enum SyntheticExchanges {
    static let epochMicros: Int64 = 1_780_000_000_000_000

    static func templates() -> [Exchange] {
        (0..<64).map { index in
            let start = Date(timeIntervalSince1970: Double(epochMicros) / 1_000_000)
            func at(_ ms: Double) -> Date { start.addingTimeInterval(ms / 1000) }
            let method = index % 4 == 0 ? "POST" : "GET"
            let url = "https://api.example.test/v2/users/\(1000 + index)/orders?page=\(index % 7)&sort=desc"
            var requestHeaders: HTTPHeaders = [
                "Accept": "application/json", "Accept-Encoding": "gzip, br", "User-Agent": "NetTapBench/1.0 (Linux)",
                "Authorization": "Bearer <redacted>", "X-Request-ID": UUID().uuidString,
            ]
            var requestBody: CapturedBody?
            if method == "POST" {
                requestHeaders.add(name: "Content-Type", value: "application/json")
                requestBody = CapturedBody(
                    data: Data(#"{"item":"sku-\#(index)","quantity":\#(index % 5 + 1),"note":"deliver after 6pm"}"#.utf8),
                    contentType: "application/json")
            }
            let items = (0..<(3 + index % 4)).map { #"{"id":\#($0),"name":"Order \#($0)","total":"\#(19 + $0).90","status":"shipped"}"# }
            let isImage = index % 16 == 5
            let body = isImage
                ? CapturedBody(data: Data((0..<512).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }), contentType: "image/png")
                : CapturedBody(data: Data(("{\"orders\":[" + items.joined(separator: ",") + "]}").utf8), contentType: "application/json")
            let failed = index % 32 == 7
            let response = failed ? nil : CapturedResponse(
                statusCode: index % 20 == 3 ? 404 : 200,
                headers: [
                    "Content-Type": body.contentType ?? "", "Cache-Control": "no-store", "Date": "Thu, 28 May 2026 20:26:40 GMT",
                    "Server": "edge", "X-Request-ID": "r-\(index)", "Set-Cookie": "sid=s\(index); Path=/; HttpOnly",
                ],
                body: body, httpVersion: "h2")
            let metrics = index % 3 == 0 ? nil : TimingMetrics(
                fetchStart: at(0), domainLookupStart: at(0.4), domainLookupEnd: at(6.2), connectStart: at(6.2),
                connectEnd: at(31.5), secureConnectionStart: at(14.1), secureConnectionEnd: at(31.5),
                requestStart: at(31.6), requestEnd: at(31.9), responseStart: at(78.25), responseEnd: at(80.125),
                remoteAddress: "203.0.113.\(index)", remotePort: 443, isReusedConnection: false, networkProtocol: "h2")
            return Exchange(
                sessionID: "bench", startedAt: start, duration: 0.081 + Double(index) / 1000,
                request: CapturedRequest(method: method, url: url, headers: requestHeaders, body: requestBody),
                response: response,
                error: failed ? CaptureError(category: .timeout, domain: "NSURLErrorDomain", code: -1001, message: "The request timed out.") : nil,
                metrics: metrics, labels: ["screen": "Orders", "scenario": "scroll"], capturePath: .session)
        }
    }

    /// The `index`th exchange: a template with its own id and start time.
    static func exchange(_ index: Int, templates: [Exchange]) -> Exchange {
        var exchange = templates[index % templates.count]
        // Ids from the index: UUID() reads the system's random source, which is not what is measured.
        let n = UInt64(index)
        exchange.id = UUID(uuid: (
            0x4E, 0x54, 0x41, 0x50, 0, 0, 0x40, 0, 0x80, 0, UInt8(truncatingIfNeeded: n >> 40),
            UInt8(truncatingIfNeeded: n >> 32), UInt8(truncatingIfNeeded: n >> 24), UInt8(truncatingIfNeeded: n >> 16),
            UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n)))
        exchange.startedAt = Date(timeIntervalSince1970: Double(epochMicros + Int64(index) * 1_000) / 1_000_000)
        return exchange
    }
}
