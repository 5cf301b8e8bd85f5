import Foundation
import NetTapCore
import Testing

@testable import NetTapStore

#if canImport(Glibc)
    import Glibc
#endif

/// A writer process is killed with SIGKILL at random moments, 20 times, on the same file; after
/// each kill the file must open, pass integrity_check and hold every exchange the writer had
/// reported flushed.
@Suite("Store crash safety (kill -9)")
struct StoreCrashTests {
    /// `nettap-bench`, built by `swift build` / `swift test` next to the test bundle.
    static func writerBinary() throws -> String {
        if let path = ProcessInfo.processInfo.environment["NETTAP_BENCH_BINARY"] { return path }
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // On Linux the test binary is .build/<config>/NetTapPackageTests.xctest; on macOS it sits
        // inside the .xctest bundle (Contents/MacOS).
        for _ in 0 ..< 4 {
            let candidate = directory.appendingPathComponent("nettap-bench").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw CrashTestFailure(
            "nettap-bench was not found next to the test binary (\(CommandLine.arguments[0])); run `swift build` first or set NETTAP_BENCH_BINARY")
    }

    struct CrashTestFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The same IDs the writer uses (nettap-bench StoreCrashWriter.id).
    static func id(run: Int, index: Int) -> String {
        String(format: "00000000-%04X-4000-8000-%012llX", run & 0xffff, UInt64(index))
    }

    @Test("20 kills at random moments: the file opens, passes integrity_check and keeps every flushed exchange")
    func killNineTwentyTimes() throws {
        let binary = try Self.writerBinary()
        let directory = try TemporaryDirectory()
        let path = directory.storePath
        var generator = SystemRandomNumberGenerator()
        var totalFlushed = 0
        for run in 1 ... 20 {
            let child = try ChildProcess(executable: binary, arguments: ["store-writer", path, "\(run)"])
            // Kill after a random number of flush reports (1 to 12)...
            let linesBeforeKill = Int.random(in: 1 ... 12, using: &generator)
            var flushed = 0
            for _ in 0 ..< linesBeforeKill {
                guard let line = try child.readLine(deadline: Date().addingTimeInterval(60)) else {
                    Issue.record("run \(run): writer ended early (status \(child.terminationStatus))")
                    return
                }
                let parts = line.split(separator: " ")
                try #require(parts.count == 2 && parts[0] == "flushed", "run \(run): unexpected line \"\(line)\"")
                flushed = Int(parts[1]) ?? 0
            }
            // Then a random 0-150 ms more, so the kill also lands inside a batch, mid-transaction
            // or mid-checkpoint, not only just after a commit. (Choosing the moment, not waiting
            // for anything: whatever the writer is doing then is what the test is about.)
            let extraMicroseconds = UInt32.random(in: 0 ..< 150_000, using: &generator)
            usleep(extraMicroseconds)
            child.kill(SIGKILL)
            #expect(child.terminationReason == .uncaughtSignal, "run \(run): the writer was not killed")
            totalFlushed += flushed

            // The file opens through the store (migrations, WAL recovery) and is sound.
            let store = try ExchangeStore(path: path)
            let integrity = try store.withDatabase { db in try db.scalar("PRAGMA integrity_check")?.text }
            #expect(integrity == "ok", "run \(run): integrity_check says \(integrity ?? "nothing")")
            let ids = try store.withDatabase { db -> Set<String> in
                var ids = Set<String>()
                let prefix = String(format: "00000000-%04X-", run)
                try db.prepare("SELECT id FROM exchanges WHERE id >= ? AND id < ?")
                    .forEachRow([.text(prefix), .text(prefix + "\u{7f}")]) { ids.insert($0.string(at: 0) ?? "") }
                return ids
            }
            let missing = (0 ..< flushed).filter { !ids.contains(Self.id(run: run, index: $0)) }
            #expect(missing.isEmpty, "run \(run): \(missing.count) of \(flushed) flushed exchanges missing, first \(missing.prefix(5))")
            // Every stored exchange of this run reads back whole (bodies decompress, JSON decodes).
            var read = 0
            try store.forEach(matching: ExchangeFilter(sessionID: "crash-\(run)")) { exchange in
                read += 1
                #expect(exchange.labels["run"] == "\(run)")
            }
            #expect(read == ids.count)
            // Body reference counts match the exchanges that point at bodies.
            let refsMatch = try store.withDatabase { db in
                try db.int64(
                    """
                    SELECT (SELECT total(refs) FROM bodies) =
                           (SELECT count(request_body_id) + count(response_body_id) FROM exchanges)
                    """)
            }
            #expect(refsMatch == 1, "run \(run): body reference counts disagree with the exchanges")
        }
        #expect(totalFlushed > 0)
    }
}
