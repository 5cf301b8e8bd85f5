import Foundation
import NetTapCore
import Testing
@testable import NetTapExport

/// NDJSON: one exchange JSON per line, streamed out and read back; bad lines are named.
@Suite struct NDJSONTests {
    /// What the exchange JSON contract itself gives back for `exchange`: NDJSON adds nothing to it
    /// and takes nothing from it. (The contract keeps milliseconds, so this is not always `exchange`.)
    static func throughContract(_ exchange: Exchange) throws -> Exchange {
        try ExchangeJSON.decoder().decode(Exchange.self, from: ExchangeJSON.line(exchange))
    }

    @Test func writerAndReaderRoundTrip() throws {
        let sink = DataSink()
        let writer = NDJSONWriter(sink: sink, bufferSize: 512)
        for exchange in SampleExchanges.all { try writer.write(exchange) }
        try writer.finish()
        #expect(writer.lineCount == SampleExchanges.all.count)
        let lines = sink.data.split(separator: UInt8(ascii: "\n"))
        #expect(lines.count == SampleExchanges.all.count)
        #expect(Data(lines[0]) == (try ExchangeJSON.line(SampleExchanges.all[0])), "each line is ExchangeJSON.line")
        let decoded = try NDJSONReader().decode(sink.data)
        #expect(decoded == (try SampleExchanges.all.map(Self.throughContract)))
        #expect(decoded.map(\.id) == SampleExchanges.all.map(\.id))
    }

    @Test func streamsToAFileInChunks() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("out.ndjson")
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        let writer = NDJSONWriter(sink: handle, bufferSize: 1024)
        for _ in 0..<20 {
            for exchange in SampleExchanges.all { try writer.write(exchange) }
        }
        try writer.finish()
        try handle.close()
        let exchanges = try NDJSONReader().decode(contentsOf: url)
        #expect(exchanges.count == 20 * SampleExchanges.all.count)
        #expect(Array(exchanges.suffix(SampleExchanges.all.count)) == (try SampleExchanges.all.map(Self.throughContract)))
    }

    @Test func blankLinesAndCRLFAreFine() throws {
        let line1 = try ExchangeJSON.line(SampleExchanges.failed)
        let line2 = try ExchangeJSON.line(SampleExchanges.binaryUpload)
        let data = line1 + Data("\r\n\n   \n".utf8) + line2 + Data("\r\n".utf8)
        let expected = try [SampleExchanges.failed, SampleExchanges.binaryUpload].map(Self.throughContract)
        #expect(try NDJSONReader().decode(data) == expected)
    }

    static func file(_ lines: [String]) -> Data {
        Data(lines.joined(separator: "\n").utf8)
    }

    @Test func aLineThatIsNotJSONIsNamedWithItsColumn() throws {
        let good = String(decoding: try ExchangeJSON.line(SampleExchanges.failed), as: UTF8.self)
        let data = Self.file([good, good, #"{"id": "x", "startedAt": ]"#])
        do {
            _ = try NDJSONReader().decode(data)
            Issue.record("accepted")
        } catch {
            #expect(error.line == 3)
            #expect(error.column == 26)
            #expect(error.description == "line 3, column 26: expected a value, found ']'")
        }
    }

    @Test func aMissingOrMistypedFieldIsNamedWithItsPath() throws {
        let good = String(decoding: try ExchangeJSON.line(SampleExchanges.failed), as: UTF8.self)
        var object = try #require(try JSONSerialization.jsonObject(with: Data(good.utf8)) as? [String: Any])
        object["request"] = nil
        let noRequest = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        let badHeader = #"{"id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","startedAt":"2026-05-28T20:26:40.250Z","request":{"method":"GET","url":"x","headers":[{"name":"A","value":"b"},{"name":"C","value":7}]}}"#
        let badDate = #"{"id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","startedAt":"yesterday","request":{"method":"GET","url":"x"}}"#

        for (lines, line, field, reason) in [
            ([good, noRequest], 2, "request", "missing"),
            ([good, "", badHeader], 3, "request.headers[1].value", "expected a string, found number"),
            ([badDate], 1, "startedAt", "startedAt is not an ISO 8601 date: yesterday"),
        ] {
            do {
                _ = try NDJSONReader().decode(Self.file(lines))
                Issue.record("accepted line \(line)")
            } catch {
                #expect(error.line == line)
                #expect(error.field == field, "\(error)")
                #expect(error.description == "line \(line): \(field): \(reason)")
            }
        }
        #expect(noRequest != good, "the fixture really lost its request")
    }

    @Test func theConsumerStopsAtTheBadLineAndErrorsPassThrough() throws {
        let good = String(decoding: try ExchangeJSON.line(SampleExchanges.failed), as: UTF8.self)
        var count = 0
        #expect(throws: NDJSONImportError.self) {
            try NDJSONReader().read(Self.file([good, good, "nope"])) { _ in count += 1 }
        }
        #expect(count == 2)
    }
}
