import CZlib
import Foundation

/// gzip (RFC 1952) through the system zlib: whole-buffer compression for response bodies, and
/// bounded decompression for uploads that arrive with `Content-Encoding: gzip`.
///
/// ```swift
/// let packed = try Gzip.compress(Data(text.utf8))
/// let original = try Gzip.decompress(packed, maxBytes: 10 << 20)
/// ```
public enum Gzip {
    /// Why zlib refused: the operation, zlib's return code and its message.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var operation: String
        public var code: Int32
        public var message: String

        public init(operation: String, code: Int32, message: String) {
            self.operation = operation
            self.code = code
            self.message = message
        }

        public var description: String { "gzip \(operation) failed: \(message) (zlib code \(code))" }
    }

    /// Compresses `data` into a single gzip member. `level` is zlib's 0...9, or -1 for its default.
    public static func compress(_ data: Data, level: Int32 = -1) throws -> Data {
        var stream = z_stream()
        // windowBits 15 + 16 asks deflate for a gzip header and trailer instead of zlib's.
        var status = deflateInit2_(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
                                   ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw failure("init", status, &stream) }
        defer { deflateEnd(&stream) }

        var output = Data(count: Int(deflateBound(&stream, uLong(data.count))) + 32)
        let produced: Int = try data.withUnsafeBytes { (input: UnsafeRawBufferPointer) in
            try output.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) in
                stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(out.count)
                status = deflate(&stream, Z_FINISH)
                guard status == Z_STREAM_END else { throw failure("deflate", status, &stream) }
                return Int(stream.total_out)
            }
        }
        output.count = produced
        return output
    }

    /// Decompresses gzip data (several concatenated members are accepted), refusing to produce
    /// more than `maxBytes` so that a small hostile upload cannot exhaust memory.
    public static func decompress(_ data: Data, maxBytes: Int = 64 << 20) throws -> Data {
        var stream = z_stream()
        var status = inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw failure("init", status, &stream) }
        defer { inflateEnd(&stream) }

        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        try data.withUnsafeBytes { (input: UnsafeRawBufferPointer) in
            stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(input.count)
            repeat {
                let produced: Int = buffer.withUnsafeMutableBytes { out in
                    stream.next_out = out.bindMemory(to: Bytef.self).baseAddress
                    stream.avail_out = uInt(out.count)
                    status = inflate(&stream, Z_NO_FLUSH)
                    return out.count - Int(stream.avail_out)
                }
                guard status == Z_OK || status == Z_STREAM_END else {
                    throw failure("inflate", status == Z_BUF_ERROR ? Z_DATA_ERROR : status, &stream,
                                  fallback: status == Z_BUF_ERROR ? "truncated input" : nil)
                }
                output.append(contentsOf: buffer[0..<produced])
                guard output.count <= maxBytes else {
                    throw Failure(operation: "inflate", code: Z_BUF_ERROR, message: "output exceeds \(maxBytes) bytes")
                }
                if status == Z_STREAM_END && stream.avail_in > 0 {
                    status = inflateReset(&stream)
                    guard status == Z_OK else { throw failure("inflateReset", status, &stream) }
                    status = Z_OK
                }
            } while status != Z_STREAM_END
        }
        return output
    }

    private static func failure(_ operation: String, _ code: Int32, _ stream: inout z_stream, fallback: String? = nil) -> Failure {
        let message = stream.msg.map { String(cString: $0) } ?? fallback ?? "zlib error"
        return Failure(operation: operation, code: code, message: message)
    }
}
