import CZlib
import Foundation

/// zlib (RFC 1950) compression of stored bodies.
///
/// Bodies are compressed with a fast level: the store writes on the capture's heels, and API
/// bodies (JSON, HTML) shrink well even so.
enum BodyCompression {
    /// Errors from zlib, with its code.
    struct Failure: Error, CustomStringConvertible {
        var operation: String
        var code: Int32
        var description: String { "zlib \(operation) failed with code \(code)" }
    }

    /// The compressed bytes, or nil when compression would not make them smaller.
    static func compress(_ data: Data, level: Int32 = 1) -> Data? {
        guard !data.isEmpty else { return nil }
        var bound = compressBound(uLong(data.count))
        var output = Data(count: Int(bound))
        let code = output.withUnsafeMutableBytes { out -> Int32 in
            data.withUnsafeBytes { input -> Int32 in
                guard let outBase = out.bindMemory(to: Bytef.self).baseAddress,
                    let inBase = input.bindMemory(to: Bytef.self).baseAddress
                else { return Z_BUF_ERROR }
                return compress2(outBase, &bound, inBase, uLong(data.count), level)
            }
        }
        guard code == Z_OK, Int(bound) < data.count else { return nil }
        output.count = Int(bound)
        return output
    }

    /// Inflates `data`, which must expand to exactly `originalSize` bytes.
    static func decompress(_ data: Data, originalSize: Int) throws -> Data {
        guard originalSize > 0 else { return Data() }
        var length = uLongf(originalSize)
        var output = Data(count: originalSize)
        let code = output.withUnsafeMutableBytes { out -> Int32 in
            data.withUnsafeBytes { input -> Int32 in
                guard let outBase = out.bindMemory(to: Bytef.self).baseAddress,
                    let inBase = input.bindMemory(to: Bytef.self).baseAddress
                else { return Z_DATA_ERROR }
                return uncompress(outBase, &length, inBase, uLong(data.count))
            }
        }
        guard code == Z_OK else { throw Failure(operation: "uncompress", code: code) }
        guard Int(length) == originalSize else { throw Failure(operation: "uncompress (size mismatch)", code: Z_DATA_ERROR) }
        return output
    }
}
