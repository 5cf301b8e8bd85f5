import Foundation
import NetTapCore

/// One exchange in `nettap list --json`: the columns of the table with stable keys (absent values
/// are `null`), sizes in bytes, duration in seconds, instants as in the exchange JSON.
struct ListRow: Encodable {
    let exchange: Exchange

    init(_ exchange: Exchange) {
        self.exchange = exchange
    }

    private enum CodingKeys: String, CodingKey {
        case id, sessionId, startedAt, method, url, host, status, error, duration, requestSize, responseSize
        case capturePath, labels
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(exchange.id.uuidString, forKey: .id)
        try container.encode(exchange.sessionID, forKey: .sessionId)
        try container.encode(ExchangeJSON.formatDate(exchange.startedAt), forKey: .startedAt)
        try container.encode(exchange.request.method, forKey: .method)
        try container.encode(exchange.request.url, forKey: .url)
        try container.encode(exchange.request.host, forKey: .host)
        try container.encode(exchange.response?.statusCode, forKey: .status)
        try container.encode(exchange.error?.category.rawValue, forKey: .error)
        try container.encode(exchange.duration, forKey: .duration)
        try container.encode(Self.size(exchange.request.body), forKey: .requestSize)
        try container.encode(exchange.response.map { Self.size($0.body) } ?? nil, forKey: .responseSize)
        try container.encode(exchange.capturePath.rawValue, forKey: .capturePath)
        try container.encode(exchange.labels, forKey: .labels)
    }

    /// The whole body's size: 0 without a body, nil when unknown.
    static func size(_ body: CapturedBody?) -> Int64? {
        guard let body else { return 0 }
        return body.size
    }
}
