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
        /// Linux: recorders of URLSession's own async calls, whose task NetTap never holds, by
        /// method and URL until a callback names their task.
        var unclaimed: [String: [ExchangeRecorder]] = [:]
        /// The key each unclaimed recorder waits under, so that forgetting one neither rebuilds
        /// the key from its request nor searches for it.
        var keyOfUnclaimed: [ObjectIdentifier: String] = [:]

        /// Removes `recorder` from those waiting under `key`, mutating the list in place.
        mutating func removeUnclaimed(_ recorder: ExchangeRecorder, key: String) {
            keyOfUnclaimed.removeValue(forKey: ObjectIdentifier(recorder))
            unclaimed[key]?.removeAll { $0 === recorder }
            if unclaimed[key]?.isEmpty == true { unclaimed.removeValue(forKey: key) }
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
    /// inside URLSession: the first callback for a task with the same method and URL claims it.
    /// Requests that are alike in both get recorders that are alike in what callbacks add (hops).
    func expectTask(for request: URLRequest, recorder: ExchangeRecorder) {
        let key = Self.claimKey(request)
        tracking.withLock {
            $0.unclaimed[key, default: []].append(recorder)
            $0.keyOfUnclaimed[ObjectIdentifier(recorder)] = key
        }
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
        let key = Self.claimKey(request)
        return tracking.withLock { tracking -> ExchangeRecorder? in
            guard let recorder = tracking.unclaimed[key]?.first else { return nil }
            tracking.removeUnclaimed(recorder, key: key)
            tracking.byTask[identity] = recorder
            tracking.taskOfRecorder[ObjectIdentifier(recorder)] = identity
            return recorder
        }
    }

    private static func claimKey(_ request: URLRequest) -> String {
        (request.httpMethod ?? "GET") + " " + (request.url?.absoluteString ?? "")
    }

    private func forget(_ recorder: ExchangeRecorder) {
        tracking.withLock { tracking in
            if Self.marksRequests { tracking.byKey.removeValue(forKey: recorder.id.uuidString) }
            if let task = tracking.taskOfRecorder.removeValue(forKey: ObjectIdentifier(recorder)) {
                tracking.byTask.removeValue(forKey: task)
            } else if let key = tracking.keyOfUnclaimed[ObjectIdentifier(recorder)] {
                tracking.removeUnclaimed(recorder, key: key)
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
