import Foundation
import NetTapCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Capture path 1: the URLProtocol interceptor. It sees the traffic of code you do not control,
/// and applies the rules in force (`RulesRuntime.shared`) to it.
///
/// Install it with `NetTap.enable(on:)` (a session configuration) or `NetTap.registerGlobally()`
/// (`URLSession.shared`). It reports to `NetTap.shared`.
///
/// How it loads a request differs by platform, behind this one class:
/// - Linux: it wraps the request's own native loader and observes it (ProtocolEngine+Linux.swift,
///   docs/capture-on-linux.md): nothing is re-issued and every callback stays on URLSession's queue.
/// - Apple platforms: it forwards through one long-lived session (ProtocolEngine+Apple.swift).
public final class NetTapURLProtocol: URLProtocol {
    /// Marks requests NetTap issues itself so that it never captures its own traffic (Apple
    /// platforms; corelibs drops URLProtocol properties, see docs/linux-foundation-notes.md).
    static let handledKey = "NetTap.handled"

    override public class func canInit(with request: URLRequest) -> Bool {
        if URLProtocol.property(forKey: handledKey, in: request) != nil { return false }
        guard ProtocolEngine.canLoad(request) else { return false }
        return RulesRuntime.shared.isActive || NetTap.shared.shouldCapture(request)
    }

    override public class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    // URLSession calls startLoading and stopLoading on one serial queue, so the engine needs no
    // lock of its own; it is created on first use because `task` is set after init.
    private var engine: ProtocolEngine?

    override public func startLoading() {
        if engine == nil { engine = ProtocolEngine(owner: self, captures: true) }
        engine?.start()
    }

    override public func stopLoading() {
        engine?.stop()
    }
}

/// The rules-only interceptor that `NetTapSession` puts first in its own configuration, so that
/// rules apply to its requests exactly as on the URLProtocol path. It records nothing: the session
/// records what its callbacks show.
public final class NetTapRulesProtocol: URLProtocol {
    override public class func canInit(with request: URLRequest) -> Bool {
        RulesRuntime.shared.isActive && ProtocolEngine.canLoad(request)
    }

    override public class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    private var engine: ProtocolEngine?

    override public func startLoading() {
        if engine == nil { engine = ProtocolEngine(owner: self, captures: false) }
        engine?.start()
    }

    override public func stopLoading() {
        engine?.stop()
    }
}
