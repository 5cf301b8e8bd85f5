import NetTapCore

/// A streaming writer of exchanges in one export format: `HARWriter`, `NDJSONWriter`, `CurlWriter`.
///
/// Rules every writer keeps: `write(_:)` appends one exchange and may hand bytes to its sink at
/// any time; `finish()` completes the document and hands over every remaining byte, and calling
/// it again does nothing. A writer is used from one thread at a time.
public protocol ExchangeWriter: AnyObject {
    func write(_ exchange: Exchange) throws
    func finish() throws
}

extension HARWriter: ExchangeWriter {}
extension NDJSONWriter: ExchangeWriter {}
