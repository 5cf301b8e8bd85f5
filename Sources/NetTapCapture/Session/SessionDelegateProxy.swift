import Foundation
import NetTapCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The delegate of a `NetTapSession`'s URLSession: it notes what each callback tells about a
/// tracked task, then forwards the callback to the app's delegate (SessionDelegateProxy+Linux.swift,
/// SessionDelegateProxy+Apple.swift), so the app sees exactly what a plain session would show it.
///
/// Tasks are found from their `originalRequest`, which carries NetTap's recorder id as a URLProtocol
/// property: invisible on the wire, and kept by URLSession on every platform.
final class SessionDelegateProxy: NSObject, @unchecked Sendable {
    static let recorderKey = "NetTap.recorder"

    let appDelegate: URLSessionDelegate?
    private let recorders = Protected<[String: ExchangeRecorder]>([:])
    /// Delegate-based tasks, by identity: corelibs rebuilds the request it stores in
    /// `originalRequest`, dropping URLProtocol properties, so those tasks are also known directly.
    private let tasks = Protected<[ObjectIdentifier: ExchangeRecorder]>([:])

    init(appDelegate: URLSessionDelegate?) {
        self.appDelegate = appDelegate
    }

    var appTaskDelegate: URLSessionTaskDelegate? { appDelegate as? URLSessionTaskDelegate }
    var appDataDelegate: URLSessionDataDelegate? { appDelegate as? URLSessionDataDelegate }
    var appDownloadDelegate: URLSessionDownloadDelegate? { appDelegate as? URLSessionDownloadDelegate }

    /// Marks `request` as NetTap's and remembers its recorder until the exchange ends.
    func track(_ request: URLRequest, recorder: ExchangeRecorder) -> URLRequest {
        let key = recorder.id.uuidString
        recorders.withLock { $0[key] = recorder }
        return Self.marked(request, recorderKey: key)
    }

    /// Remembers which recorder a task created by NetTapSession belongs to.
    func associate(_ task: URLSessionTask, with recorder: ExchangeRecorder) {
        tasks.withLock { $0[ObjectIdentifier(task)] = recorder }
    }

    func recorder(for task: URLSessionTask) -> ExchangeRecorder? {
        if let recorder = tasks.withLock({ $0[ObjectIdentifier(task)] }) { return recorder }
        guard let request = task.originalRequest,
            let key = URLProtocol.property(forKey: Self.recorderKey, in: request) as? String
        else { return nil }
        return recorders.withLock { $0[key] }
    }

    private func forget(_ recorder: ExchangeRecorder) {
        _ = recorders.withLock { $0.removeValue(forKey: recorder.id.uuidString) }
        let task = tasks.withLock { tasks -> ObjectIdentifier? in
            guard let entry = tasks.first(where: { $0.value === recorder }) else { return nil }
            tasks.removeValue(forKey: entry.key)
            return entry.key
        }
        if let task { SessionUploads.forget(task) }
    }

    /// Ends an exchange whose task was created with a completion handler or an async call.
    func end(_ recorder: ExchangeRecorder, response: URLResponse?, error: Error?) {
        recorder.finish(response: response, error: error)
        forget(recorder)
    }

    // MARK: What callbacks tell (called by the platform forwarding before it forwards)

    func noteResponse(_ response: URLResponse, task: URLSessionTask) {
        recorder(for: task)?.didReceive(response: response)
    }

    func noteData(_ data: Data, task: URLSessionTask) {
        recorder(for: task)?.didReceive(chunk: data)
    }

    func noteRedirect(from response: HTTPURLResponse, to request: URLRequest, followed: Bool, task: URLSessionTask) {
        let from = response.url?.absoluteString ?? task.currentRequest?.url?.absoluteString ?? ""
        recorder(for: task)?.didRedirect(
            RedirectHop(url: from, statusCode: response.statusCode, location: request.url?.absoluteString ?? "", followed: followed))
    }

    func noteMetrics(_ metrics: TimingMetrics, task: URLSessionTask) {
        recorder(for: task)?.setMetrics(metrics)
    }

    func noteDownload(at location: URL, task: URLSessionTask) {
        guard let recorder = recorder(for: task) else { return }
        let contentType = (task.response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type")
        recorder.setResponseBody(RawCapture.readPrefix(of: location, cap: recorder.bodyCap, contentType: contentType))
    }

    /// The end of a delegate-based task. Tasks with completion handlers end in their handler instead,
    /// where the whole body is known; for them this does nothing.
    func noteCompletion(error: Error?, task: URLSessionTask) {
        guard let recorder = recorder(for: task), !recorder.endsInCompletionHandler else { return }
        recorder.finish(response: task.response, error: error, bytesSent: task.countOfBytesSent)
        forget(recorder)
    }
}
