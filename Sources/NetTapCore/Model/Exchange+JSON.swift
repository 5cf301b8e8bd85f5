import Foundation

// The exchange JSON contract (docs/exchange-json.md). Keys are stable; optional parts are written
// as explicit nulls so that readers can rely on every key being present.
extension Exchange: Codable {
    private enum CodingKeys: String, CodingKey {
        case id, sessionId, startedAt, duration, request, response, error, redirects, timing, labels
        case capturePath, taskKind, modifications
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // Decoded in the order of the contract, so that the first missing or bad field is named.
        let id = try container.decode(UUID.self, forKey: .id)
        let sessionID = try container.decodeIfPresent(String.self, forKey: .sessionId) ?? ""
        let started = try container.decode(String.self, forKey: .startedAt)
        guard let date = ExchangeJSON.parseDate(started) else {
            throw DecodingError.dataCorruptedError(
                forKey: .startedAt, in: container, debugDescription: "startedAt is not an ISO 8601 date: \(started)")
        }
        self.init(
            id: id,
            sessionID: sessionID,
            startedAt: date,
            duration: try container.decodeIfPresent(Double.self, forKey: .duration),
            request: try container.decode(CapturedRequest.self, forKey: .request),
            response: try container.decodeIfPresent(CapturedResponse.self, forKey: .response),
            error: try container.decodeIfPresent(CaptureError.self, forKey: .error),
            redirects: try container.decodeIfPresent([RedirectHop].self, forKey: .redirects) ?? [],
            metrics: try container.decodeIfPresent(TimingMetrics.self, forKey: .timing),
            labels: try container.decodeIfPresent([String: String].self, forKey: .labels) ?? [:],
            capturePath: try container.decodeIfPresent(CapturePath.self, forKey: .capturePath) ?? .imported,
            taskKind: try container.decodeIfPresent(TaskKind.self, forKey: .taskKind) ?? .data,
            modifications: try container.decodeIfPresent([ExchangeModification].self, forKey: .modifications) ?? [])
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(sessionID, forKey: .sessionId)
        try container.encode(ExchangeJSON.formatDate(startedAt), forKey: .startedAt)
        try container.encode(duration, forKey: .duration)
        try container.encode(request, forKey: .request)
        try container.encode(response, forKey: .response)
        try container.encode(error, forKey: .error)
        try container.encode(redirects, forKey: .redirects)
        try container.encode(metrics, forKey: .timing)
        try container.encode(labels, forKey: .labels)
        try container.encode(capturePath, forKey: .capturePath)
        try container.encode(taskKind, forKey: .taskKind)
        try container.encode(modifications, forKey: .modifications)
    }
}

/// Encoders and decoders configured for the exchange JSON contract.
public enum ExchangeJSON {
    /// An encoder for the contract: ISO 8601 dates with milliseconds, sorted keys when `pretty`.
    public static func encoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(formatDate(date))
        }
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// A decoder that reads what `encoder` writes.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = parseDate(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 date: \(text)")
            }
            return date
        }
        return decoder
    }

    /// One exchange as a single line of JSON (NDJSON, --exchange-json).
    public static func line(_ exchange: Exchange) throws -> Data {
        try encoder().encode(exchange)
    }

    /// "2026-12-02T14:15:25.123Z".
    public static func formatDate(_ date: Date) -> String {
        // Round to the millisecond as an integer and write the fraction by hand: the formatter
        // truncates, and a rounded Double such as x.981 is often stored as x.98099..., which it
        // would write one millisecond early (for about half of all instants).
        let millis = (date.timeIntervalSince1970 * 1000).rounded()
        guard millis.isFinite, abs(millis) < 9e15 else {
            return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        }
        let whole = Int64(millis)
        let fraction = ((whole % 1000) + 1000) % 1000
        let second = Date(timeIntervalSince1970: Double((whole - fraction) / 1000))
        let text = second.formatted(Date.ISO8601FormatStyle())  // "2026-12-02T14:15:25Z"
        return text.dropLast() + "." + String(format: "%03d", Int(fraction)) + "Z"
    }

    /// Reads ISO 8601 with or without fractional seconds, with "Z" or an offset.
    public static func parseDate(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
        // Offsets such as +01:00 with fractional seconds of any length (HAR writers vary).
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
