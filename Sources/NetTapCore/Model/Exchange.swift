import Foundation

/// One request and what came of it: the unit that NetTap captures, stores, exports and analyses.
///
/// A value type with no reference to URLSession, so it can cross queues and processes freely.
/// Its JSON form is a public contract (docs/exchange-json.md); `Codable` produces exactly that form.
///
/// The parts that hold strings and buffers live in one shared storage object, copied only when a
/// copy is changed. An exchange passes through the hub, sink queues and sinks; held inline, every
/// copy on the way retained and released each of its two dozen strings and arrays (BENCHMARKS.md).
public struct Exchange: Sendable, Hashable, Identifiable {
    public var id: UUID
    public var startedAt: Date
    /// Seconds from start to the end of the response or the error; nil while unknown.
    public var duration: TimeInterval?
    public var capturePath: CapturePath
    public var taskKind: TaskKind
    private var storage: Storage

    /// The capture session (one per process launch unless the app sets it).
    public var sessionID: String {
        get { storage.sessionID }
        _modify {
            makeStorageUnique()
            yield &storage.sessionID
        }
    }

    public var request: CapturedRequest {
        get { storage.request }
        _modify {
            makeStorageUnique()
            yield &storage.request
        }
    }

    public var response: CapturedResponse? {
        get { storage.response }
        _modify {
            makeStorageUnique()
            yield &storage.response
        }
    }

    public var error: CaptureError? {
        get { storage.error }
        _modify {
            makeStorageUnique()
            yield &storage.error
        }
    }

    public var redirects: [RedirectHop] {
        get { storage.redirects }
        _modify {
            makeStorageUnique()
            yield &storage.redirects
        }
    }

    public var metrics: TimingMetrics? {
        get { storage.metrics }
        _modify {
            makeStorageUnique()
            yield &storage.metrics
        }
    }

    /// Free key/values set by the app (screen, scenario, ...), stamped when the exchange started.
    public var labels: [String: String] {
        get { storage.labels }
        _modify {
            makeStorageUnique()
            yield &storage.labels
        }
    }

    /// Rules that changed this exchange, in the order they applied.
    public var modifications: [ExchangeModification] {
        get { storage.modifications }
        _modify {
            makeStorageUnique()
            yield &storage.modifications
        }
    }

    public init(
        id: UUID = .timeOrdered(), sessionID: String, startedAt: Date, duration: TimeInterval? = nil,
        request: CapturedRequest, response: CapturedResponse? = nil, error: CaptureError? = nil,
        redirects: [RedirectHop] = [], metrics: TimingMetrics? = nil, labels: [String: String] = [:],
        capturePath: CapturePath, taskKind: TaskKind = .data, modifications: [ExchangeModification] = []
    ) {
        self.id = id
        self.startedAt = startedAt
        self.duration = duration
        self.capturePath = capturePath
        self.taskKind = taskKind
        storage = Storage(
            sessionID: sessionID, request: request, response: response, error: error, redirects: redirects,
            metrics: metrics, labels: labels, modifications: modifications)
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

    public static func == (lhs: Exchange, rhs: Exchange) -> Bool {
        guard lhs.id == rhs.id, lhs.startedAt == rhs.startedAt, lhs.duration == rhs.duration,
            lhs.capturePath == rhs.capturePath, lhs.taskKind == rhs.taskKind
        else { return false }
        return lhs.storage === rhs.storage || (
            lhs.storage.sessionID == rhs.storage.sessionID &&
            lhs.storage.request == rhs.storage.request &&
            lhs.storage.response == rhs.storage.response &&
            lhs.storage.error == rhs.storage.error &&
            lhs.storage.redirects == rhs.storage.redirects &&
            lhs.storage.metrics == rhs.storage.metrics &&
            lhs.storage.labels == rhs.storage.labels &&
            lhs.storage.modifications == rhs.storage.modifications)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(startedAt)
        hasher.combine(duration)
        hasher.combine(capturePath)
        hasher.combine(taskKind)
        hasher.combine(storage.sessionID)
        hasher.combine(storage.request)
        hasher.combine(storage.response)
        hasher.combine(storage.error)
        hasher.combine(storage.redirects)
        hasher.combine(storage.metrics)
        hasher.combine(storage.labels)
        hasher.combine(storage.modifications)
    }

    /// Gives this value storage of its own before a change, when a copy shares it.
    private mutating func makeStorageUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    /// `@unchecked Sendable`: a storage object is changed only through `makeStorageUnique()`, when
    /// one exchange alone refers to it, and is immutable once shared. Exclusivity is left to the
    /// value's own (static) checks, as for any stored property of a struct.
    private final class Storage: @unchecked Sendable {
        @exclusivity(unchecked) var sessionID: String
        @exclusivity(unchecked) var request: CapturedRequest
        @exclusivity(unchecked) var response: CapturedResponse?
        @exclusivity(unchecked) var error: CaptureError?
        @exclusivity(unchecked) var redirects: [RedirectHop]
        @exclusivity(unchecked) var metrics: TimingMetrics?
        @exclusivity(unchecked) var labels: [String: String]
        @exclusivity(unchecked) var modifications: [ExchangeModification]

        init(
            sessionID: String, request: CapturedRequest, response: CapturedResponse?, error: CaptureError?,
            redirects: [RedirectHop], metrics: TimingMetrics?, labels: [String: String], modifications: [ExchangeModification]
        ) {
            self.sessionID = sessionID
            self.request = request
            self.response = response
            self.error = error
            self.redirects = redirects
            self.metrics = metrics
            self.labels = labels
            self.modifications = modifications
        }

        func copy() -> Storage {
            Storage(
                sessionID: sessionID, request: request, response: response, error: error, redirects: redirects,
                metrics: metrics, labels: labels, modifications: modifications)
        }
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
