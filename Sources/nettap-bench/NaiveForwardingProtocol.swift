import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The baseline the capture benchmark compares NetTap with: a URLProtocol that forwards every
/// request through a brand-new URLSession, as common in-app loggers do, and replays the result.
///
/// It is made just safe enough to benchmark on Linux: the new session is created off URLSession's
/// work queue (creating it inside `startLoading` traps), and the whole body is delivered in one
/// `didLoad` (fact 4). Each benchmark worker uses its own client session with one request at a time,
/// so these client calls never race another task of the same session.
final class NaiveForwardingProtocol: URLProtocol {
    private static let handledKey = "NaiveForwardingProtocol.handled"
    private var forwardSession: URLSession?

    override class func canInit(with request: URLRequest) -> Bool {
        URLProtocol.property(forKey: handledKey, in: request) == nil
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        guard let mutable = (request as NSURLRequest).mutableCopy() as? NSMutableURLRequest else { return }
        URLProtocol.setProperty(true, forKey: Self.handledKey, in: mutable)
        let forwarded = mutable as URLRequest
        // URLProtocol is not Sendable; this baseline deliberately uses it across threads, as the
        // loggers it stands for do.
        nonisolated(unsafe) let unsafeSelf = self
        DispatchQueue.global().async {
            let session = URLSession(configuration: .ephemeral)
            unsafeSelf.forwardSession = session
            session.dataTask(with: forwarded) { data, response, error in
                let client = unsafeSelf.client
                if let response {
                    client?.urlProtocol(unsafeSelf, didReceive: response, cacheStoragePolicy: .notAllowed)
                    client?.urlProtocol(unsafeSelf, didLoad: data ?? Data())
                    client?.urlProtocolDidFinishLoading(unsafeSelf)
                } else {
                    client?.urlProtocol(unsafeSelf, didFailWithError: error ?? URLError(.unknown))
                }
                session.finishTasksAndInvalidate()
            }.resume()
        }
    }

    override func stopLoading() {
        forwardSession?.invalidateAndCancel()
    }
}
