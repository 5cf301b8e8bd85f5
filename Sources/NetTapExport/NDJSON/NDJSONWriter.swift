import Foundation
import NetTapCore

/// Writes exchanges as NDJSON: one exchange JSON (the public contract, `ExchangeJSON.line`) per
/// line, streamed to a sink in chunks.
///
/// ```swift
/// let writer = NDJSONWriter(sink: FileHandle.standardOutput)
/// for exchange in exchanges { try writer.write(exchange) }
/// try writer.finish()
/// ```
public final class NDJSONWriter {
    private let sink: any ByteSink
    private let bufferSize: Int
    private var buffer = Data()
    private let encoder = ExchangeJSON.encoder()

    /// Lines written so far.
    public private(set) var lineCount = 0

    public init(sink: any ByteSink, bufferSize: Int = 256 * 1024) {
        self.sink = sink
        self.bufferSize = max(bufferSize, 1)
    }

    /// Appends one line.
    public func write(_ exchange: Exchange) throws {
        buffer.append(try encoder.encode(exchange))
        buffer.append(UInt8(ascii: "\n"))
        lineCount += 1
        if buffer.count >= bufferSize { try flush() }
    }

    /// Hands every buffered line to the sink. Safe to call more than once.
    public func finish() throws {
        try flush()
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        let chunk = buffer
        buffer = Data()
        try sink.append(chunk)
    }
}
