import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session delegate shared by many concurrent delegate-based tasks: it routes each task's events
/// to that task's own waiter.
final class StressDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct Entry {
        var data = Data()
        var continuation: CheckedContinuation<(Data, URLResponse?, Error?), Never>?
    }

    private let lock = NSLock()
    private var entries: [ObjectIdentifier: Entry] = [:]

    /// Resumes `task` and waits for its completion.
    func run(_ task: URLSessionDataTask) async -> (Data, URLResponse?, Error?) {
        await withCheckedContinuation { continuation in
            lock.withLock { entries[ObjectIdentifier(task)] = Entry(continuation: continuation) }
            task.resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock { entries[ObjectIdentifier(dataTask)]?.data.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let entry = lock.withLock { entries.removeValue(forKey: ObjectIdentifier(task)) }
        entry?.continuation?.resume(returning: (entry?.data ?? Data(), task.response, error))
    }
}
