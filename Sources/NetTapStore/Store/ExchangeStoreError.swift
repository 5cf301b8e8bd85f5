import Foundation

/// What can go wrong with the exchange store besides SQLite itself (which throws `DatabaseError`).
public enum ExchangeStoreError: Error, Sendable, CustomStringConvertible {
    /// No store file at the path, and the store was opened with `createIfMissing: false`.
    case storeNotFound(path: String)
    /// An exchange holds a value the store cannot keep faithfully (a NaN date, ...).
    case invalidExchange(id: UUID, reason: String)
    /// `insert(_:)` failed on the exchange at `index`; nothing of the batch was stored.
    case insertFailed(index: Int, id: UUID, reason: String)
    /// A row could not be read back into an exchange.
    case corrupt(String)
    /// An ID prefix matched more than one exchange.
    case ambiguousID(prefix: String, matches: Int)
    /// An argument out of range.
    case invalidArgument(String)

    public var description: String {
        switch self {
        case .storeNotFound(let path):
            return "no NetTap store at \(path) (pass --store PATH or set NETTAP_STORE)"
        case .invalidExchange(let id, let reason):
            return "exchange \(id.uuidString) cannot be stored: \(reason)"
        case .insertFailed(let index, let id, let reason):
            return "insert failed at exchange index \(index) (id \(id.uuidString)), nothing was stored: \(reason)"
        case .corrupt(let detail):
            return "store is corrupt: \(detail)"
        case .ambiguousID(let prefix, let matches):
            return "ID \"\(prefix)\" matches \(matches) exchanges; give more characters"
        case .invalidArgument(let detail):
            return detail
        }
    }
}
