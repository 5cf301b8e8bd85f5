import Foundation

/// The request of an exchange as the app sent it (after redaction, before any sink sees it).
public struct CapturedRequest: Sendable, Hashable, Codable {
    public var method: String
    /// The URL as a string: a capture must be able to hold a URL that `URL` would reject.
    public var url: String
    public var headers: HTTPHeaders
    public var body: CapturedBody?

    public init(method: String, url: String, headers: HTTPHeaders = HTTPHeaders(), body: CapturedBody? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The host of `url`, lowercased, when it parses.
    public var host: String? {
        URLComponents(string: url)?.host?.lowercased()
    }

    private enum CodingKeys: String, CodingKey {
        case method, url, headers, bodySize, body
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        method = try container.decode(String.self, forKey: .method)
        url = try container.decode(String.self, forKey: .url)
        headers = try container.decodeIfPresent(HTTPHeaders.self, forKey: .headers) ?? HTTPHeaders()
        body = try container.decodeIfPresent(CapturedBody.self, forKey: .body)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(method, forKey: .method)
        try container.encode(url, forKey: .url)
        try container.encode(headers, forKey: .headers)
        try container.encode(body == nil ? 0 : body?.size, forKey: .bodySize)
        try container.encode(body, forKey: .body)
    }
}
