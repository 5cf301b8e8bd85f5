import Foundation
import NetTapCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Upload bodies of NetTapSession's upload tasks, by task, while the task runs: URLSession keeps
/// an upload task's body apart from its request, and a rule that re-issues the request needs it.
enum SessionUploads {
    private static let bodies = Protected<[ObjectIdentifier: Data]>([:])

    static func remember(_ body: Data, for task: URLSessionTask) {
        bodies.withLock { $0[ObjectIdentifier(task)] = body }
    }

    static func body(for task: URLSessionTask) -> Data? {
        bodies.withLock { $0[ObjectIdentifier(task)] }
    }

    static func forget(_ task: ObjectIdentifier) {
        _ = bodies.withLock { $0.removeValue(forKey: task) }
    }
}
