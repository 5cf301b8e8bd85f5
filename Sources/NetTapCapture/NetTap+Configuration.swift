import NetTapCore

extension NetTap {
    /// How NetTap captures. A value: read it, change it, set it back (or use `update(_:)`);
    /// changes apply to requests that start afterwards.
    ///
    /// ```swift
    /// NetTap.shared.update { configuration in
    ///     configuration.samplingRate = 0.1          // capture one request in ten
    ///     configuration.deniedHosts = ["*.analytics.example"]
    ///     configuration.bodyCaptureLimit = 256 * 1024
    /// }
    /// ```
    public struct Configuration: Sendable {
        /// The runtime switch. Off: requests go straight to URLSession, untouched and unrecorded.
        public var isEnabled: Bool = true
        /// The share of requests captured, 0...1, decided independently per request.
        public var samplingRate: Double = 1
        /// The most bytes kept of each body; longer bodies are truncated and marked. Default 1 MiB.
        public var bodyCaptureLimit: Int = 1 << 20
        /// When not empty, only these hosts are captured. Patterns: `api.example.com`, `*.example.com`.
        public var allowedHosts: [String] = [] {
            didSet { allowedHostPatterns = allowedHosts.map(HostPattern.init) }
        }
        /// These hosts are never captured (checked after `allowedHosts`).
        public var deniedHosts: [String] = [] {
            didSet { deniedHostPatterns = deniedHosts.map(HostPattern.init) }
        }
        /// Applied to every exchange before any sink sees it.
        public var redaction: RedactionPolicy = .default
        /// Stamped on every exchange; one per process launch unless the app sets its own.
        public var sessionID: String = UUID().uuidString
        /// How many finished exchanges may wait to be processed before the oldest are dropped.
        public var pendingLimit: Int = 10_000

        var allowedHostPatterns: [HostPattern] = []
        var deniedHostPatterns: [HostPattern] = []

        public init() {}

        /// Whether either host list is set; without them no request needs its host looked at.
        var filtersHosts: Bool { !allowedHostPatterns.isEmpty || !deniedHostPatterns.isEmpty }

        /// Whether a request to `host` is captured under the host lists.
        public func captures(host: String?) -> Bool {
            guard filtersHosts else { return true }
            let host = host?.lowercased() ?? ""
            if !allowedHostPatterns.isEmpty, !allowedHostPatterns.contains(where: { $0.matches(host) }) {
                return false
            }
            return !deniedHostPatterns.contains { $0.matches(host) }
        }
    }
}

import Foundation
