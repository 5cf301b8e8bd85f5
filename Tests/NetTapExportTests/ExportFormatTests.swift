import Foundation
import NetTapCore
import Testing
@testable import NetTapExport

/// `ExportFormat` gives each format's streaming writer, writing what the format's own API writes.
@Suite struct ExportFormatTests {
    static func export(_ format: ExportFormat) throws -> Data {
        let sink = DataSink()
        let writer = format.writer(to: sink)
        for exchange in SampleExchanges.all { try writer.write(exchange) }
        try writer.finish()
        try writer.finish()
        return sink.data
    }

    @Test func namesAreTheCommandLineNames() {
        #expect(ExportFormat.allCases.map(\.rawValue) == ["har", "curl", "ndjson"])
        #expect(ExportFormat(rawValue: "xml") == nil)
    }

    @Test func harWriterWritesHAR() throws {
        #expect(try Self.export(.har) == HAR.encode(SampleExchanges.all))
    }

    @Test func curlWriterWritesTheCommands() throws {
        let expected = try CurlExporter().commands(for: SampleExchanges.all)
        #expect(String(decoding: try Self.export(.curl), as: UTF8.self) == expected)
    }

    @Test func ndjsonWriterWritesOneLinePerExchange() throws {
        let expected = try SampleExchanges.all.map { try ExchangeJSON.line($0) + Data("\n".utf8) }.reduce(Data(), +)
        #expect(try Self.export(.ndjson) == expected)
    }
}
