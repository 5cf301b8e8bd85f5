import Foundation

/// The bytes of a request or response body as NetTap kept them.
///
/// A body larger than the capture cap is truncated and marked, never dropped: `data` holds the
/// first bytes and `size` the size on the wire. Where a platform gives no access to the bytes
/// (see docs/capture-on-linux.md) `data` is empty and `unavailableReason` says why.
public struct CapturedBody: Sendable, Hashable {
    /// The captured bytes: all of them, or the first `cap` bytes when `isTruncated`.
    public var data: Data
    /// The size of the whole body, when known.
    public var size: Int64?
    /// The declared media type (the `Content-Type` header value), when known.
    public var contentType: String?
    /// True when the body was longer than the cap and `data` holds only its start.
    public var isTruncated: Bool
    /// True when redaction changed the captured bytes.
    public var isRedacted: Bool
    /// Set when the platform did not let NetTap see the bytes.
    public var unavailableReason: String?

    public init(
        data: Data,
        size: Int64? = nil,
        contentType: String? = nil,
        isTruncated: Bool = false,
        isRedacted: Bool = false,
        unavailableReason: String? = nil
    ) {
        self.data = data
        self.size = size ?? (isTruncated || unavailableReason != nil ? nil : Int64(data.count))
        self.contentType = contentType
        self.isTruncated = isTruncated
        self.isRedacted = isRedacted
        self.unavailableReason = unavailableReason
    }

    /// A body whose bytes the platform did not expose; only its size may be known.
    public static func unavailable(size: Int64?, contentType: String?, reason: String) -> CapturedBody {
        CapturedBody(data: Data(), size: size, contentType: contentType, unavailableReason: reason)
    }

    /// Captures `data` under `cap`, truncating and marking when it is longer.
    public static func capturing(_ data: Data, cap: Int, contentType: String?) -> CapturedBody {
        if data.count <= cap {
            return CapturedBody(data: data, size: Int64(data.count), contentType: contentType)
        }
        return CapturedBody(
            data: Data(data.prefix(cap)), size: Int64(data.count), contentType: contentType, isTruncated: true)
    }

    /// The captured bytes as UTF-8 text, or nil when they are not valid UTF-8.
    public var text: String? {
        String(data: data, encoding: .utf8)
    }
}

extension CapturedBody: Codable {
    private enum CodingKeys: String, CodingKey {
        case size, capturedSize, contentType, truncated, redacted, unavailable, encoding, data
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let encoding = try container.decodeIfPresent(String.self, forKey: .encoding) ?? "utf8"
        let payload = try container.decodeIfPresent(String.self, forKey: .data) ?? ""
        switch encoding {
        case "utf8":
            data = Data(payload.utf8)
        case "base64":
            guard let decoded = Data(base64Encoded: payload) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .data, in: container, debugDescription: "body data is not valid base64")
            }
            data = decoded
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .encoding, in: container,
                debugDescription: "body encoding must be \"utf8\" or \"base64\", not \"\(encoding)\"")
        }
        size = try container.decodeIfPresent(Int64.self, forKey: .size)
        contentType = try container.decodeIfPresent(String.self, forKey: .contentType)
        isTruncated = try container.decodeIfPresent(Bool.self, forKey: .truncated) ?? false
        isRedacted = try container.decodeIfPresent(Bool.self, forKey: .redacted) ?? false
        unavailableReason = try container.decodeIfPresent(String.self, forKey: .unavailable)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(size, forKey: .size)
        try container.encode(data.count, forKey: .capturedSize)
        try container.encodeIfPresent(contentType, forKey: .contentType)
        try container.encode(isTruncated, forKey: .truncated)
        if isRedacted { try container.encode(true, forKey: .redacted) }
        try container.encodeIfPresent(unavailableReason, forKey: .unavailable)
        if let text = String(data: data, encoding: .utf8) {
            try container.encode("utf8", forKey: .encoding)
            try container.encode(text, forKey: .data)
        } else {
            try container.encode("base64", forKey: .encoding)
            try container.encode(data.base64EncodedString(), forKey: .data)
        }
    }
}

/// Collects a body that arrives in chunks, keeping at most `cap` bytes and counting all of them.
///
/// Memory stays bounded by the cap whatever the body size; this is what lets capture stay on
/// for multi-gigabyte downloads.
public struct BodyAccumulator: Sendable {
    public let cap: Int
    public private(set) var kept = Data()
    public private(set) var totalSize: Int64 = 0

    public init(cap: Int) {
        self.cap = max(0, cap)
    }

    public mutating func append(_ chunk: Data) {
        totalSize += Int64(chunk.count)
        let room = cap - kept.count
        if room > 0 {
            kept.append(chunk.prefix(room))
        }
    }

    /// Appends raw bytes, copying only what fits under the cap.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        totalSize += Int64(bytes.count)
        let room = cap - kept.count
        if room > 0 {
            kept.append(contentsOf: bytes.prefix(room))
        }
    }

    public func body(contentType: String?) -> CapturedBody {
        CapturedBody(
            data: kept, size: totalSize, contentType: contentType, isTruncated: totalSize > Int64(kept.count))
    }
}
