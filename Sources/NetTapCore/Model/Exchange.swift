import Foundation

/// One request and what came of it: the unit that NetTap captures, stores, exports and analyses.
///
/// A value type with no reference to URLSession, so it can cross queues and processes freely.
/// Its JSON form is a public contract (docs/exchange-json.md); `Codable` produces exactly that form.
public struct Exchange: Sendable, Hashable, Identifiable {
    public var id: UUID
    /// The capture session (one per process launch unless the app sets it).
    public var sessionID: String
    public var startedAt: Date
    /// Seconds from start to the end of the response or the error; nil while unknown.
    public var duration: TimeInterval?
    public var request: CapturedRequest
    public var response: CapturedResponse?
    public var error: CaptureError?
    public var redirects: [RedirectHop]
    public var metrics: TimingMetrics?
    /// Free key/values set by the app (screen, scenario, ...), stamped when the exchange started.
    public var labels: [String: String]
    public var capturePath: CapturePath
    public var taskKind: TaskKind
    /// Rules that changed this exchange, in the order they applied.
    public var modifications: [ExchangeModification]

    public init(
        id: UUID = .timeOrdered(), sessionID: String, startedAt: Date, duration: TimeInterval? = nil,
        request: CapturedRequest, response: CapturedResponse? = nil, error: CaptureError? = nil,
        redirects: [RedirectHop] = [], metrics: TimingMetrics? = nil, labels: [String: String] = [:],
        capturePath: CapturePath, taskKind: TaskKind = .data, modifications: [ExchangeModification] = []
    ) {
        self.id = id
        self.sessionID = sessionID
        self.startedAt = startedAt
        self.duration = duration
        self.request = request
        self.response = response
        self.error = error
        self.redirects = redirects
        self.metrics = metrics
        self.labels = labels
        self.capturePath = capturePath
        self.taskKind = taskKind
        self.modifications = modifications
    }

    /// The URL that finally answered: the response URL after redirects, else the request URL.
    public var finalURL: String {
        response?.url ?? request.url
    }

    /// True when a response arrived with status 400 or above, or no response arrived.
    public var isFailure: Bool {
        if let response { return response.statusCode >= 400 }
        return true
    }
}

/// The signal that a request started, for sinks that show requests in flight.
public struct ExchangeStart: Sendable, Hashable, Codable {
    public var id: UUID
    public var sessionID: String
    public var startedAt: Date
    public var method: String
    public var url: String
    public var labels: [String: String]
    public var capturePath: CapturePath

    public init(
        id: UUID, sessionID: String, startedAt: Date, method: String, url: String,
        labels: [String: String], capturePath: CapturePath
    ) {
        self.id = id
        self.sessionID = sessionID
        self.startedAt = startedAt
        self.method = method
        self.url = url
        self.labels = labels
        self.capturePath = capturePath
    }
}
