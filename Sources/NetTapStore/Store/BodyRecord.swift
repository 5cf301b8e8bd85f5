import Foundation

/// One body as the `bodies` table keeps it: identified by the SHA-256 of its bytes, compressed
/// with zlib when it is larger than the threshold and compression makes it smaller.
package struct BodyRecord: Sendable {
    /// How the `data` column holds the bytes.
    package enum Encoding: String, Sendable {
        case identity
        case zlib
    }

    /// SHA-256 of the uncompressed bytes.
    package var hash: [UInt8]
    /// The uncompressed size.
    package var size: Int64
    package var encoding: Encoding
    /// The bytes as the `data` column holds them.
    package var stored: Data

    /// Hashes and (above `compressionThreshold` bytes, when it helps) compresses `bytes`. Done
    /// while encoding a batch, off the database queue; a body that turns out to be stored
    /// already was compressed for nothing, which is cheaper than a second lookup on the queue.
    package init(bytes: Data, compressionThreshold: Int) {
        hash = SHA256.hash(bytes)
        size = Int64(bytes.count)
        if bytes.count > compressionThreshold, let compressed = BodyCompression.compress(bytes) {
            encoding = .zlib
            stored = compressed
        } else {
            encoding = .identity
            stored = bytes
        }
    }

    /// Reads back what `init` stored.
    static func decode(encoding: String, data: Data, size: Int) throws -> Data {
        switch Encoding(rawValue: encoding) {
        case .identity: return data
        case .zlib: return try BodyCompression.decompress(data, originalSize: size)
        case nil: throw ExchangeStoreError.corrupt("unknown body encoding \"\(encoding)\"")
        }
    }
}
