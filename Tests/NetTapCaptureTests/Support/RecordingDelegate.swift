import Foundation
import NetTapTestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session delegate that records what URLSession tells it, with the choices a test wants it to
/// make: refuse redirects, answer an auth challenge, cancel after some bytes.
final class RecordingDelegate: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate, @unchecked Sendable {
    struct Options: Sendable {
        var refuseRedirects = false
        var credential: URLCredential?
        var cancelAfterBytes: Int?
        /// The body handed out in `needNewBodyStream` (streamed uploads).
        var streamedBody: Data?
    }

    private let options: Options
    private let lock = NSLock()
    private var received = Data()
    private var response: URLResponse?
    private var redirects: [Int] = []
    private var challenges = 0
    private var downloaded: Data?
    private var completion: (error: Error?, response: URLResponse?)?
    private var waiter: CheckedContinuation<Void, Never>?

    init(options: Options = Options()) {
        self.options = options
    }

    var redirectStatuses: [Int] { lock.withLock { redirects } }
    var challengeCount: Int { lock.withLock { challenges } }

    /// What the delegate saw, once the task completed.
    func result() async -> (data: Data, response: URLResponse?, error: Error?) {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = lock.withLock { () -> Bool in
                if completion != nil { return true }
                waiter = continuation
                return false
            }
            if done { continuation.resume() }
        }
        return lock.withLock { (downloaded ?? received, completion?.response ?? response, completion?.error) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        lock.withLock { redirects.append(response.statusCode) }
        completionHandler(options.refuseRedirects ? nil : request)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        completionHandler(options.streamedBody.map { InputStream(data: $0) })
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        lock.withLock { challenges += 1 }
        if let credential = options.credential, challenge.previousFailureCount == 0 {
            completionHandler(.useCredential, credential)
        } else {
            completionHandler(.performDefaultHandling, nil)
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        lock.withLock { self.response = response }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let total = lock.withLock { () -> Int in
            received.append(data)
            return received.count
        }
        if let limit = options.cancelAfterBytes, total >= limit {
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        let data = try? Data(contentsOf: location)
        lock.withLock { downloaded = data }
        // corelibs leaves the file in place after this returns (Apple platforms delete it), so an
        // app on Linux must remove it itself (docs/linux-foundation-notes.md, fact 18).
        try? FileManager.default.removeItem(at: location)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let waiting = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            completion = (error, task.response)
            defer { waiter = nil }
            return waiter
        }
        waiting?.resume()
    }
}
