import Foundation

/// When each phase of an exchange happened, and what the connection was, where the platform tells.
///
/// Every field is optional: Apple platforms fill most of them from `URLSessionTaskMetrics`;
/// on Linux corelibs never delivers task metrics (docs/capture-on-linux.md), so NetTap records
/// what it observes itself: fetch start, response start, end and byte counts.
public struct TimingMetrics: Sendable, Hashable, Codable {
    public var fetchStart: Date?
    public var domainLookupStart: Date?
    public var domainLookupEnd: Date?
    public var connectStart: Date?
    public var connectEnd: Date?
    public var secureConnectionStart: Date?
    public var secureConnectionEnd: Date?
    public var requestStart: Date?
    public var requestEnd: Date?
    public var responseStart: Date?
    public var responseEnd: Date?
    public var remoteAddress: String?
    public var remotePort: Int?
    public var isReusedConnection: Bool?
    public var networkProtocol: String?
    public var bytesSent: Int64?
    public var bytesReceived: Int64?

    public init(
        fetchStart: Date? = nil, domainLookupStart: Date? = nil, domainLookupEnd: Date? = nil,
        connectStart: Date? = nil, connectEnd: Date? = nil, secureConnectionStart: Date? = nil,
        secureConnectionEnd: Date? = nil, requestStart: Date? = nil, requestEnd: Date? = nil,
        responseStart: Date? = nil, responseEnd: Date? = nil, remoteAddress: String? = nil,
        remotePort: Int? = nil, isReusedConnection: Bool? = nil, networkProtocol: String? = nil,
        bytesSent: Int64? = nil, bytesReceived: Int64? = nil
    ) {
        self.fetchStart = fetchStart
        self.domainLookupStart = domainLookupStart
        self.domainLookupEnd = domainLookupEnd
        self.connectStart = connectStart
        self.connectEnd = connectEnd
        self.secureConnectionStart = secureConnectionStart
        self.secureConnectionEnd = secureConnectionEnd
        self.requestStart = requestStart
        self.requestEnd = requestEnd
        self.responseStart = responseStart
        self.responseEnd = responseEnd
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
        self.isReusedConnection = isReusedConnection
        self.networkProtocol = networkProtocol
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
    }

    /// Seconds between two instants, when both are known.
    public static func interval(_ start: Date?, _ end: Date?) -> TimeInterval? {
        guard let start, let end else { return nil }
        return max(0, end.timeIntervalSince(start))
    }
}
