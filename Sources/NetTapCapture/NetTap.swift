import Foundation
import NetTapCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// NetTap's capture entry point: configuration, sinks, labels, and the two capture paths.
///
/// Capture path 1, the URLProtocol interceptor, sees traffic of code you do not control:
/// ```swift
/// let configuration = URLSessionConfiguration.default
/// NetTap.enable(on: configuration)              // any session built from it is captured
/// NetTap.registerGlobally()                     // URLSession.shared too
/// ```
/// Capture path 2, the instrumented session, re-issues nothing and sees every byte:
/// ```swift
/// let session = NetTapSession(configuration: .default)
/// let (data, response) = try await session.data(from: url)
/// ```
/// Either way, finished exchanges go to the sinks you add, on their own queues:
/// ```swift
/// let recent = RingBufferSink(capacity: 500)
/// NetTap.shared.addSink(recent)
/// NetTap.shared.setLabel("Checkout", forKey: "screen")   // stamped on what starts from now on
/// ```
public final class NetTap: Sendable {
    /// The instance the URLProtocol interceptor reports to, and `NetTapSession`'s default.
    public static let shared = NetTap()

    /// The configuration and the global labels, replaced as a whole when either changes.
    private let state: Protected<CaptureSettings>
    let hub: CaptureHub

    public convenience init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, pacing: { HubPacing() })
    }

    /// - Parameter pacing: how the hub paces its batches; tests pass one whose yields they count.
    init(configuration: Configuration = Configuration(), pacing: @escaping @Sendable () -> HubPacing) {
        state = Protected(CaptureSettings(configuration))
        hub = CaptureHub(pendingLimit: configuration.pendingLimit, pacing: pacing)
    }

    /// The current configuration. Setting it applies to requests that start afterwards.
    public var configuration: Configuration {
        get { state.current.configuration }
        set { state.withLock { $0 = CaptureSettings(newValue, labels: $0.labels) } }
    }

    /// Changes the configuration in place.
    public func update(_ change: (inout Configuration) -> Void) {
        state.withLock { settings in
            var configuration = settings.configuration
            change(&configuration)
            settings = CaptureSettings(configuration, labels: settings.labels)
        }
    }

    /// The runtime switch.
    public var isEnabled: Bool {
        get { state.current.configuration.isEnabled }
        set { update { $0.isEnabled = newValue } }
    }

    /// The configuration for a request starting now, without copying it.
    var settings: CaptureSettings {
        state.current
    }

    // MARK: Sinks

    /// Adds a sink; it receives exchanges that finish from now on, on its own queue.
    public func addSink(_ sink: CaptureSink) {
        hub.add(sink)
    }

    public func removeSink(_ sink: CaptureSink) {
        hub.remove(sink)
    }

    /// Events dropped because NetTap or a sink could not keep up: the price of never blocking a request.
    public var droppedEventCount: Int {
        hub.droppedCount
    }

    /// Waits until every exchange finished so far has been delivered to every sink.
    /// For tests, tools and app shutdown; capture itself never waits.
    public func drain() async {
        await hub.drain()
    }

    // MARK: Labels

    /// Sets (or, with nil, clears) a label stamped on every exchange that starts while it is set,
    /// such as the current screen or test scenario.
    public func setLabel(_ value: String?, forKey key: String) {
        state.withLock { settings in
            var labels = settings.labels
            labels[key] = value
            settings = settings.replacingLabels(labels)
        }
    }

    /// The labels set with `setLabel(_:forKey:)`.
    public var labels: [String: String] {
        state.current.labels
    }

    /// Runs `operation` with extra labels on exchanges that the instrumented session starts inside it
    /// (task-local: concurrent flows keep their own labels).
    public static func withLabels<Result>(
        _ labels: [String: String], operation: () async throws -> Result
    ) async rethrows -> Result {
        try await ScopedLabels.$current.withValue(ScopedLabels.current.merging(labels) { $1 }, operation: operation)
    }

    /// The labels an exchange starting now under `settings` carries: global ones, overridden by
    /// scoped ones.
    func labelsForNewExchange(under settings: CaptureSettings) -> [String: String] {
        let scoped = ScopedLabels.current
        let global = settings.labels
        if scoped.isEmpty { return global }
        return global.merging(scoped) { $1 }
    }

    // MARK: Decisions on the request path (cheap, lock held briefly)

    /// `http` or `https` in any case, without building a lowercased copy for the usual spellings.
    static func isHTTP(scheme: String) -> Bool {
        switch scheme {
        case "http", "https": return true
        default:
            let lowered = scheme.lowercased()
            return lowered == "http" || lowered == "https"
        }
    }

    /// Whether a request should be captured: switch, scheme, host lists and sampling.
    func shouldCapture(_ request: URLRequest) -> Bool {
        captureSettings(for: request) != nil
    }

    /// The settings a request starting now is captured under, or nil when it is not captured
    /// (switch, scheme, host lists, sampling). The caller hands them to the recorder, so that
    /// a request reads NetTap's shared state once.
    func captureSettings(for request: URLRequest) -> CaptureSettings? {
        guard let url = request.url, let scheme = url.scheme, Self.isHTTP(scheme: scheme) else { return nil }
        let settings = state.current
        guard settings.configuration.isEnabled else { return nil }
        // Parsing and lowercasing the host showed in profiles of every request; without host
        // lists it decides nothing.
        if settings.configuration.filtersHosts, !settings.configuration.captures(host: url.host) { return nil }
        let samplingRate = settings.configuration.samplingRate
        if samplingRate >= 1 { return settings }
        if samplingRate <= 0 { return nil }
        return Double.random(in: 0..<1) < samplingRate ? settings : nil
    }
}

/// Labels scoped to a Swift concurrency task tree.
enum ScopedLabels {
    @TaskLocal static var current: [String: String] = [:]
}
