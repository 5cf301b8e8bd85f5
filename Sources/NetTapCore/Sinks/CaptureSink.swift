/// What capture hands to sinks.
public enum CaptureEvent: Sendable, Hashable {
    /// A request started; sent for inspectors that show requests in flight.
    case started(ExchangeStart)
    /// A request finished with a response or an error.
    case finished(Exchange)

    public var exchangeID: UUID {
        switch self {
        case .started(let start): return start.id
        case .finished(let exchange): return exchange.id
        }
    }
}

import Foundation

/// A destination for captured exchanges: the store, an uploader, a live inspector, a test.
///
/// Rules every implementation can rely on, and must keep:
/// - `receive(_:)` is called on a serial queue that belongs to this sink alone, in the order events
///   happened for each exchange. It is never called on the request path.
/// - Events have already been redacted with the capture's redaction policy.
/// - A sink that is slow only delays itself: when more than `pendingLimit` events wait for it,
///   the oldest waiting ones are dropped and counted, and capture goes on.
/// - A sink must not throw or trap; errors are the sink's own to record.
public protocol CaptureSink: AnyObject, Sendable {
    /// Takes the event over: a sink that keeps it can move it instead of copying every field.
    /// An implementation may leave out `consuming`; it then borrows the event.
    func receive(_ event: consuming CaptureEvent)
    /// How many events may wait for this sink before the oldest are dropped. Default 10,000.
    var pendingLimit: Int { get }
    /// Whether this sink wants `.started` events. Default false (most sinks store finished exchanges).
    var wantsStartEvents: Bool { get }
}

extension CaptureSink {
    public var pendingLimit: Int { 10_000 }
    public var wantsStartEvents: Bool { false }
}
