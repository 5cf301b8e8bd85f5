import Foundation
import NetTapCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The delegate of a `NetTapSession`'s URLSession: it notes what each callback tells about a
/// tracked task, then forwards the callback to the app's delegate (SessionDelegateProxy+Linux.swift,
/// SessionDelegateProxy+Apple.swift), so the app sees exactly what a plain session would show it.
///
/// Tasks are known by identity from the moment NetTapSession creates them. On Apple platforms the
/// request also carries the recorder's id as a URLProtocol property (invisible on the wire), which
/// finds tasks URLSession makes itself; corelibs drops such properties, so Linux skips that work.
final class SessionDelegateProxy: NSObject, @unchecked Sendable {
    static let recorderKey = "NetTap.recorder"

    let appDelegate: URLSessionDelegate?
    private let tracking = Protected(Tracking())

    /// The recorders of exchanges in flight, under one lock.
    private struct Tracking {
        /// By recorder id, for requests that carry it as a URLProtocol property (Apple platforms).
        var byKey: [String: ExchangeRecorder] = [:]
        /// By task identity: corelibs rebuilds the request it stores in `originalRequest`, dropping
        /// URLProtocol properties, so tasks NetTapSession created are known directly.
        var byTask: [ObjectIdentifier: ExchangeRecorder] = [:]
        /// Which task each recorder belongs to, so that forgetting one is O(1).
        var taskOfRecorder: [ObjectIdentifier: ObjectIdentifier] = [:]
        /// Linux: recorders of URLSession's own async calls, whose task NetTap never holds, until a
        /// callback names their task. Keyed by the recorder itself: most such calls end with no
        /// callback at all (corelibs calls a session delegate only for redirects, challenges and
        /// body streams), so registering and forgetting must be cheap, and the rare claim scans.
        var unclaimed: [ObjectIdentifier: ExchangeRecorder] = [:]

        /// The earliest unclaimed recorder whose request has `task`'s method and URL.
        func firstUnclaimed(matching request: URLRequest) -> ExchangeRecorder? {
            let method = request.httpMethod ?? "GET"
            var first: ExchangeRecorder?
            for recorder in unclaimed.values
            where recorder.request.url == request.url && (recorder.request.httpMethod ?? "GET") == method {
                if let current = first, current.startedAt <= recorder.startedAt { continue }
                first = recorder
            }
            return first
        }
    }

    init(appDelegate: URLSessionDelegate?) {
        self.appDelegate = appDelegate
    }

    var appTaskDelegate: URLSessionTaskDelegate? { appDelegate as? URLSessionTaskDelegate }
    var appDataDelegate: URLSessionDataDelegate? { appDelegate as? URLSessionDataDelegate }
    var appDownloadDelegate: URLSessionDownloadDelegate? { appDelegate as? URLSessionDownloadDelegate }

    /// Marks `request` as NetTap's and remembers its recorder until the exchange ends.
    func track(_ request: URLRequest, recorder: ExchangeRecorder) -> URLRequest {
        guard Self.marksRequests else { return request }
        let key = recorder.id.uuidString
        tracking.withLock { $0.byKey[key] = recorder }
        return Self.marked(request, recorderKey: key)
    }

    /// Remembers which recorder a task created by NetTapSession belongs to.
    func associate(_ task: URLSessionTask, with recorder: ExchangeRecorder) {
        tracking.withLock {
            $0.byTask[ObjectIdentifier(task)] = recorder
            $0.taskOfRecorder[ObjectIdentifier(recorder)] = ObjectIdentifier(task)
        }
    }

    /// The recorder of a task that a NetTapSession started, if `task` is one: for the rules engine,
    /// which must not record such a task a second time.
    static func sessionRecorder(of task: URLSessionTask) -> ExchangeRecorder? {
        (task.delegate as? SessionDelegateProxy)?.recorder(for: task)
    }

    /// Remembers the recorder of one of URLSession's own async calls (Linux), whose task is created
    /// inside URLSession: the first callback for a task with the same method and URL claims the
    /// earliest such recorder. Requests alike in both get recorders alike in what callbacks add (hops).
    func expectTask(for recorder: ExchangeRecorder) {
        tracking.withLock { $0.unclaimed[ObjectIdentifier(recorder)] = recorder }
    }

    func recorder(for task: URLSessionTask) -> ExchangeRecorder? {
        let identity = ObjectIdentifier(task)
        if let recorder = tracking.withLock({ $0.byTask[identity] }) { return recorder }
        if Self.marksRequests {
            guard let request = task.originalRequest,
                let key = URLProtocol.property(forKey: Self.recorderKey, in: request) as? String
            else { return nil }
            return tracking.withLock { $0.byKey[key] }
        }
        guard let request = task.originalRequest else { return nil }
        return tracking.withLock { tracking -> ExchangeRecorder? in
            guard let recorder = tracking.firstUnclaimed(matching: request) else { return nil }
            tracking.unclaimed.removeValue(forKey: ObjectIdentifier(recorder))
            tracking.byTask[identity] = recorder
            tracking.taskOfRecorder[ObjectIdentifier(recorder)] = identity
            return recorder
        }
    }

    private func forget(_ recorder: ExchangeRecorder) {
        tracking.withLock { tracking in
            if Self.marksRequests { tracking.byKey.removeValue(forKey: recorder.id.uuidString) }
            if let task = tracking.taskOfRecorder.removeValue(forKey: ObjectIdentifier(recorder)) {
                tracking.byTask.removeValue(forKey: task)
            } else {
                tracking.unclaimed.removeValue(forKey: ObjectIdentifier(recorder))
            }
        }
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

    /// A body stream the app's delegate hands over for a streamed upload, teed so that the exchange
    /// keeps its first bytes (where the platform lets NetTap wrap a stream).
    func teeRequestBody(_ stream: InputStream?, task: URLSessionTask) -> InputStream? {
        guard let stream, let recorder = recorder(for: task), let teed = StreamTeeing.tee(stream, cap: recorder.bodyCap) else {
            return stream
        }
        recorder.setRequestBody(.teed(teed.tee))
        return teed.stream
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
