import Foundation

/// One body as the `bodies` table keeps it: identified by the SHA-256 of its bytes, compressed
/// with zlib when it is larger than the threshold and compression makes it smaller.
package struct BodyRecord: Sendable {
    /// How the `data` column holds the bytes.
    package enum Encoding: String, Sendable {
        case identity
        case zlib
    }

    package var hash: [UInt8]
    package var bytes: Data

    package init(bytes: Data) {
        self.bytes = bytes
        self.hash = SHA256.hash(bytes)
    }

    /// What goes into the `encoding` and `data` columns.
    package func storedForm(compressionThreshold: Int) -> (encoding: Encoding, data: Data) {
        if bytes.count > compressionThreshold, let compressed = BodyCompression.compress(bytes) {
            return (.zlib, compressed)
        }
        return (.identity, bytes)
    }

    /// Reads back what `storedForm` wrote.
    static func decode(encoding: String, data: Data, size: Int) throws -> Data {
        switch Encoding(rawValue: encoding) {
        case .identity: return data
        case .zlib: return try BodyCompression.decompress(data, originalSize: size)
        case nil: throw ExchangeStoreError.corrupt("unknown body encoding \"\(encoding)\"")
        }
    }
}
