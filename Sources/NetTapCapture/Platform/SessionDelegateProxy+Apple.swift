#if canImport(Darwin)
// Apple platforms only: Linux CI does not compile this file. The delegate protocols are Objective-C
// protocols with optional methods here, so each call is made only if the app's delegate implements
// it, and otherwise NetTap does what URLSession does for a delegate without that method.
import Foundation
import NetTapCore

extension SessionDelegateProxy {
    /// Apple platforms keep URLProtocol properties, so a task's recorder can be found from its request.
    static let marksRequests = true

    /// Marks the request as NetTap's (so the URLProtocol path skips it) and names its recorder.
    static func marked(_ request: URLRequest, recorderKey: String) -> URLRequest {
        guard let mutable = (request as NSURLRequest).mutableCopy() as? NSMutableURLRequest else { return request }
        URLProtocol.setProperty(true, forKey: NetTapURLProtocol.handledKey, in: mutable)
        URLProtocol.setProperty(recorderKey, forKey: Self.recorderKey, in: mutable)
        return mutable as URLRequest
    }
}

extension SessionDelegateProxy: URLSessionDataDelegate, URLSessionDownloadDelegate {
    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: Error?) {
        appDelegate?.urlSession?(session, didBecomeInvalidWithError: error)
    }

    func urlSession(
        _ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard let method = appDelegate?.urlSession(_:didReceive:completionHandler:) else {
            return completionHandler(.performDefaultHandling, nil)
        }
        method(session, challenge, completionHandler)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let decide: @Sendable (URLRequest?) -> Void = { [self] decision in
            noteRedirect(from: response, to: request, followed: decision != nil, task: task)
            completionHandler(decision)
        }
        guard let method = appTaskDelegate?.urlSession(_:task:willPerformHTTPRedirection:newRequest:completionHandler:) else {
            return decide(request)
        }
        method(session, task, response, request, decide)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        if let method = appTaskDelegate?.urlSession(_:task:didReceive:completionHandler:) {
            return method(session, task, challenge, completionHandler)
        }
        // Without a task-level method URLSession asks the session-level one.
        urlSession(session, didReceive: challenge, completionHandler: completionHandler)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        guard let method = appTaskDelegate?.urlSession(_:task:needNewBodyStream:) else { return completionHandler(nil) }
        method(session, task) { [self] stream in completionHandler(teeRequestBody(stream, task: task)) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        appTaskDelegate?.urlSession?(
            session, task: task, didSendBodyData: bytesSent, totalBytesSent: totalBytesSent,
            totalBytesExpectedToSend: totalBytesExpectedToSend)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        noteMetrics(TimingMetrics(metrics), task: task)
        appTaskDelegate?.urlSession?(session, task: task, didFinishCollecting: metrics)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        noteCompletion(error: error, task: task)
        appTaskDelegate?.urlSession?(session, task: task, didCompleteWithError: error)
    }

    func urlSession(_ session: URLSession, taskIsWaitingForConnectivity task: URLSessionTask) {
        appTaskDelegate?.urlSession?(session, taskIsWaitingForConnectivity: task)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        noteResponse(response, task: dataTask)
        guard let method = appDataDelegate?.urlSession(_:dataTask:didReceive:completionHandler:) else {
            return completionHandler(.allow)
        }
        method(session, dataTask, response, completionHandler)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        noteData(data, task: dataTask)
        appDataDelegate?.urlSession?(session, dataTask: dataTask, didReceive: data)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didBecome downloadTask: URLSessionDownloadTask) {
        appDataDelegate?.urlSession?(session, dataTask: dataTask, didBecome: downloadTask)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse,
        completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void
    ) {
        guard let method = appDataDelegate?.urlSession(_:dataTask:willCacheResponse:completionHandler:) else {
            return completionHandler(proposedResponse)
        }
        method(session, dataTask, proposedResponse, completionHandler)
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        noteDownload(at: location, task: downloadTask)
        appDownloadDelegate?.urlSession(session, downloadTask: downloadTask, didFinishDownloadingTo: location)
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
        appDownloadDelegate?.urlSession?(
            session, downloadTask: downloadTask, didWriteData: bytesWritten, totalBytesWritten: totalBytesWritten,
            totalBytesExpectedToWrite: totalBytesExpectedToWrite)
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didResumeAtOffset fileOffset: Int64,
        expectedTotalBytes: Int64
    ) {
        appDownloadDelegate?.urlSession?(
            session, downloadTask: downloadTask, didResumeAtOffset: fileOffset, expectedTotalBytes: expectedTotalBytes)
    }
}

/// On Apple platforms a body stream cannot be safely subclassed for URLSession (it needs private
/// CFStream hooks), so streamed request bodies are recorded as unavailable there.
enum StreamTeeing {
    static func tee(_ stream: InputStream, cap: Int) -> (stream: InputStream, tee: BodyStreamTee)? {
        nil
    }
}
#endif
