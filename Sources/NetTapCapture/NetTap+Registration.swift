import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NetTap {
    /// Puts the URLProtocol interceptor first in `configuration`, so that every session made from it
    /// is captured. Call it before creating the session (a session copies its configuration).
    ///
    /// ```swift
    /// let configuration = URLSessionConfiguration.default
    /// NetTap.enable(on: configuration)
    /// let session = URLSession(configuration: configuration)
    /// ```
    public static func enable(on configuration: URLSessionConfiguration) {
        let others = (configuration.protocolClasses ?? []).filter { $0 != NetTapURLProtocol.self }
        ProtocolEngine.noteConfiguredClasses(after: others)
        configuration.protocolClasses = [NetTapURLProtocol.self] + others
    }

    /// Removes the interceptor from `configuration` (sessions already made keep their copy).
    public static func disable(on configuration: URLSessionConfiguration) {
        configuration.protocolClasses = (configuration.protocolClasses ?? []).filter { $0 != NetTapURLProtocol.self }
    }

    /// Registers the interceptor process-wide, so that `URLSession.shared` is captured.
    ///
    /// - Returns: whether `URLSession.shared` will be captured. On Linux the shared session copies
    ///   the registered classes once, when first used; if the app touched it before this call, its
    ///   traffic cannot be seen and this returns false. Call it early, at launch.
    @discardableResult
    public static func registerGlobally() -> Bool {
        ProtocolEngine.registerGlobally()
    }

    /// Unregisters the process-wide interceptor. On Linux `URLSession.shared` keeps its copy.
    public static func unregisterGlobally() {
        URLProtocol.unregisterClass(NetTapURLProtocol.self)
    }
}

extension NetTap {
    /// The rules in force for the whole process (both capture paths apply them).
    ///
    /// ```swift
    /// try NetTap.shared.rules.load(contentsOf: Bundle.main.url(forResource: "rules", withExtension: "json")!)
    /// NetTap.shared.rules.clear()     // a settings switch turning them off
    /// ```
    public var rules: RulesRuntime { .shared }
}
