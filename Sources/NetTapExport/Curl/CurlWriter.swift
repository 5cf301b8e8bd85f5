import Foundation
import NetTapCore

/// Streams cURL commands for exchanges to a sink, one command per exchange, separated by blank
/// lines (the text `CurlExporter.commands(for:)` returns, without holding it all).
///
/// ```swift
/// let writer = CurlWriter(sink: FileHandle.standardOutput)
/// for exchange in exchanges { try writer.write(exchange) }
/// try writer.finish()
/// ```
public final class CurlWriter: ExchangeWriter {
    private let sink: any ByteSink
    private let exporter: CurlExporter

    /// Commands written so far.
    public private(set) var commandCount = 0

    public init(sink: any ByteSink, exporter: CurlExporter = CurlExporter()) {
        self.sink = sink
        self.exporter = exporter
    }

    public func write(_ exchange: Exchange) throws {
        let text = (commandCount == 0 ? "" : "\n") + (try exporter.command(for: exchange)) + "\n"
        try sink.append(Data(text.utf8))
        commandCount += 1
    }

    /// Nothing is buffered; present for `ExchangeWriter`.
    public func finish() throws {}
}
