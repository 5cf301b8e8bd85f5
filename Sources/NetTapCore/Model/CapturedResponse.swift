import Foundation

/// The response of an exchange as the app received it.
public struct CapturedResponse: Sendable, Hashable, Codable {
    public var statusCode: Int
    public var headers: HTTPHeaders
    public var body: CapturedBody?
    /// "HTTP/1.1", "h2", ... where the platform tells.
    public var httpVersion: String?
    /// The URL that answered, after redirects.
    public var url: String?

    public init(
        statusCode: Int, headers: HTTPHeaders = HTTPHeaders(), body: CapturedBody? = nil,
        httpVersion: String? = nil, url: String? = nil
    ) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.httpVersion = httpVersion
        self.url = url
    }

    /// 1 for 1xx, 2 for 2xx, ... 5 for 5xx.
    public var statusClass: Int { statusCode / 100 }

    private enum CodingKeys: String, CodingKey {
        case status, headers, bodySize, body, httpVersion, url
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        statusCode = try container.decode(Int.self, forKey: .status)
        headers = try container.decodeIfPresent(HTTPHeaders.self, forKey: .headers) ?? HTTPHeaders()
        body = try container.decodeIfPresent(CapturedBody.self, forKey: .body)
        httpVersion = try container.decodeIfPresent(String.self, forKey: .httpVersion)
        url = try container.decodeIfPresent(String.self, forKey: .url)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(statusCode, forKey: .status)
        try container.encode(headers, forKey: .headers)
        try container.encode(body == nil ? 0 : body?.size, forKey: .bodySize)
        try container.encode(body, forKey: .body)
        try container.encode(httpVersion, forKey: .httpVersion)
        try container.encode(url, forKey: .url)
    }
}
