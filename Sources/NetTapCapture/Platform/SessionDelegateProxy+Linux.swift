#if !canImport(Darwin)
import Foundation
import FoundationNetworking
import NetTapCore

// Forwarding on Linux. corelibs declares every delegate method as a protocol requirement with a
// default implementation, so calling the app's delegate through the protocol runs either its own
// method or the same default a plain session would have run.

extension SessionDelegateProxy {
    /// On Linux the request goes out untouched: corelibs drops URLProtocol properties when an
    /// NSMutableURLRequest becomes a URLRequest, and that round trip would also lose whether the
    /// app set `timeoutInterval` (docs/linux-foundation-notes.md). Tasks are known by identity instead.
    static let marksRequests = false

    static func marked(_ request: URLRequest, recorderKey: String) -> URLRequest {
        request
    }
}

extension SessionDelegateProxy: URLSessionDataDelegate, URLSessionDownloadDelegate {
    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: Error?) {
        appDelegate?.urlSession(session, didBecomeInvalidWithError: error)
    }

    func urlSession(
        _ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @Sendable @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard let appDelegate else { return completionHandler(.performDefaultHandling, nil) }
        appDelegate.urlSession(session, didReceive: challenge, completionHandler: completionHandler)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @Sendable @escaping (URLRequest?) -> Void
    ) {
        let decide: @Sendable (URLRequest?) -> Void = { [self] decision in
            noteRedirect(from: response, to: request, followed: decision != nil, task: task)
            completionHandler(decision)
        }
        guard let appTaskDelegate else { return decide(request) }
        appTaskDelegate.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: request, completionHandler: decide)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @Sendable @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard let appTaskDelegate else { return completionHandler(.performDefaultHandling, nil) }
        appTaskDelegate.urlSession(session, task: task, didReceive: challenge, completionHandler: completionHandler)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @Sendable @escaping (InputStream?) -> Void
    ) {
        let teeing: @Sendable (InputStream?) -> Void = { [self] stream in completionHandler(teeRequestBody(stream, task: task)) }
        guard let appTaskDelegate else { return teeing(nil) }
        appTaskDelegate.urlSession(session, task: task, needNewBodyStream: teeing)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        appTaskDelegate?.urlSession(
            session, task: task, didSendBodyData: bytesSent, totalBytesSent: totalBytesSent,
            totalBytesExpectedToSend: totalBytesExpectedToSend)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        noteMetrics(TimingMetrics(metrics), task: task)
        appTaskDelegate?.urlSession(session, task: task, didFinishCollecting: metrics)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        noteCompletion(error: error, task: task)
        appTaskDelegate?.urlSession(session, task: task, didCompleteWithError: error)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @Sendable @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        noteResponse(response, task: dataTask)
        guard let appDataDelegate else { return completionHandler(.allow) }
        appDataDelegate.urlSession(session, dataTask: dataTask, didReceive: response, completionHandler: completionHandler)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        noteData(data, task: dataTask)
        appDataDelegate?.urlSession(session, dataTask: dataTask, didReceive: data)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didBecome downloadTask: URLSessionDownloadTask) {
        appDataDelegate?.urlSession(session, dataTask: dataTask, didBecome: downloadTask)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse,
        completionHandler: @Sendable @escaping (CachedURLResponse?) -> Void
    ) {
        guard let appDataDelegate else { return completionHandler(proposedResponse) }
        appDataDelegate.urlSession(session, dataTask: dataTask, willCacheResponse: proposedResponse, completionHandler: completionHandler)
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        noteDownload(at: location, task: downloadTask)
        appDownloadDelegate?.urlSession(session, downloadTask: downloadTask, didFinishDownloadingTo: location)
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
        appDownloadDelegate?.urlSession(
            session, downloadTask: downloadTask, didWriteData: bytesWritten, totalBytesWritten: totalBytesWritten,
            totalBytesExpectedToWrite: totalBytesExpectedToWrite)
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didResumeAtOffset fileOffset: Int64,
        expectedTotalBytes: Int64
    ) {
        appDownloadDelegate?.urlSession(
            session, downloadTask: downloadTask, didResumeAtOffset: fileOffset, expectedTotalBytes: expectedTotalBytes)
    }
}


/// Tees a request body stream so that NetTap keeps its first bytes while URLSession reads it.
/// corelibs reads body streams through `open`, `hasBytesAvailable`, `read` and `close` only
/// (BodySource.swift, `_BodyStreamSource`), which a subclass can pass through.
enum StreamTeeing {
    static func tee(_ stream: InputStream, cap: Int) -> (stream: InputStream, tee: BodyStreamTee)? {
        let tee = BodyStreamTee(cap: cap)
        return (TeeInputStream(wrapping: stream, tee: tee), tee)
    }
}

private final class TeeInputStream: InputStream {
    private let wrapped: InputStream
    private let tee: BodyStreamTee

    init(wrapping wrapped: InputStream, tee: BodyStreamTee) {
        self.wrapped = wrapped
        self.tee = tee
        super.init(data: Data())
    }

    override func open() { wrapped.open() }
    override func close() { wrapped.close() }
    override var hasBytesAvailable: Bool { wrapped.hasBytesAvailable }
    override var streamStatus: Stream.Status { wrapped.streamStatus }
    override var streamError: Error? { wrapped.streamError }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        let count = wrapped.read(buffer, maxLength: length)
        if count > 0 {
            tee.record(UnsafeRawBufferPointer(start: buffer, count: count))
        }
        return count
    }

    override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>
    ) -> Bool {
        false
    }
}
#endif
