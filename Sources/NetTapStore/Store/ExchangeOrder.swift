/// The order of a listing.
public enum ExchangeOrder: String, Sendable, Hashable, Codable {
    /// Most recent first (lists, inspectors).
    case newestFirst
    /// In the order they happened (exports, replays).
    case oldestFirst
}
