import Foundation
import NetTapCore

/// The formats NetTap exports, by the names the command line uses.
///
/// ```swift
/// // nettap export --format har -o out.har
/// guard let format = ExportFormat(rawValue: "har") else { ... }
/// let writer = format.writer(to: handle, curlBodyDirectory: nil)
/// for exchange in exchanges { try writer.write(exchange) }
/// try writer.finish()
/// ```
public enum ExportFormat: String, Sendable, CaseIterable {
    /// HAR 1.2 (`HARWriter`).
    case har
    /// One cURL command per exchange, separated by blank lines (`CurlWriter`).
    case curl
    /// One exchange JSON per line (`NDJSONWriter`).
    case ndjson

    /// A streaming writer for this format.
    /// - Parameters:
    ///   - sink: where the bytes go.
    ///   - curlBodyDirectory: for `.curl`, where binary request bodies are written (nil pipes them
    ///     in with `printf`); ignored by the other formats.
    public func writer(to sink: any ByteSink, curlBodyDirectory: URL? = nil) -> any ExchangeWriter {
        switch self {
        case .har: return HARWriter(sink: sink)
        case .curl: return CurlWriter(sink: sink, exporter: CurlExporter(bodyDirectory: curlBodyDirectory))
        case .ndjson: return NDJSONWriter(sink: sink)
        }
    }

    /// The usual file extension.
    public var fileExtension: String {
        switch self {
        case .har: return "har"
        case .curl: return "sh"
        case .ndjson: return "ndjson"
        }
    }
}
