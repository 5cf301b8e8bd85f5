import Foundation
import NetTapCore
import NetTapStore

/// `nettap-bench store-writer PATH RUN`: a hidden helper for the store's crash test.
///
/// Writes exchanges through a `StoreSink` without end. Exchange number I of run R has the ID
/// `StoreCrashWriter.id(run: R, index: I)`. After each `flush()` returns it prints
/// `flushed N` (N exchanges are known committed), so the test can kill it with SIGKILL at any
/// moment and then check that every one of them survived.
enum StoreCrashWriter {
    static func id(run: Int, index: Int) -> UUID {
        // 8-4-4-4-12: the run in the second group, the index in the last.
        let text = String(format: "00000000-%04X-4000-8000-%012llX", run & 0xffff, UInt64(index))
        return UUID(uuidString: text) ?? UUID()
    }

    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.count == 2, let run = Int(arguments[1]) else {
            FileHandle.standardError.write(Data("usage: nettap-bench store-writer PATH RUN\n".utf8))
            return 2
        }
        do {
            let store = try ExchangeStore(path: arguments[0])
            // Short, small batches between flushes, so that a kill lands in all phases of a write.
            let sink = StoreSink(
                store: store,
                configuration: .init(batchInterval: 0.005, batchSize: 37, pendingLimit: 100_000, retention: .unlimited))
            var generator = SystemRandomNumberGenerator()
            var index = 0
            var nextFlush = Int.random(in: 20 ... 200, using: &generator)
            while true {
                sink.receive(.finished(exchange(run: run, index: index)))
                index += 1
                if index == nextFlush {
                    try sink.flush()
                    guard sink.droppedCount == 0 else {
                        print("dropped \(sink.droppedCount)")
                        return 1
                    }
                    // Unbuffered write: the line must be out before the next exchange is received.
                    FileHandle.standardOutput.write(Data("flushed \(index)\n".utf8))
                    nextFlush = index + Int.random(in: 20 ... 200, using: &generator)
                }
            }
        } catch {
            FileHandle.standardError.write(Data("store-writer: \(error)\n".utf8))
            return 1
        }
    }

    /// Exchanges that touch every table: labels, small and compressed bodies, shared bodies.
    static func exchange(run: Int, index: Int) -> Exchange {
        let shared = index % 3 == 0
        let body = shared
            ? Data("{\"ok\":true}".utf8)
            : Data(String(repeating: "{\"run\":\(run),\"index\":\(index)}", count: 1 + index % 120).utf8)
        return Exchange(
            id: id(run: run, index: index), sessionID: "crash-\(run)", startedAt: Date(), duration: 0.001,
            request: CapturedRequest(method: "POST", url: "https://crash.test/runs/\(run)/items/\(index)",
                headers: ["Content-Type": "application/json"], body: CapturedBody(data: Data("{\"i\":\(index)}".utf8))),
            response: CapturedResponse(statusCode: 200, headers: ["Content-Type": "application/json"],
                body: CapturedBody(data: body, contentType: "application/json")),
            labels: ["run": "\(run)", "bucket": "\(index % 5)"], capturePath: .session)
    }
}
