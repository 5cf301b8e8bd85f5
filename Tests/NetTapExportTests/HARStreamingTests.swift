import Foundation
import NetTapCore
import Testing
@testable import NetTapExport

/// The streaming writer writes what `HAR.encode` writes, in bounded chunks, to real files.
@Suite struct HARStreamingTests {
    /// Records every chunk the writer hands over.
    final class ChunkSink: ByteSink {
        var chunks: [Data] = []
        func append(_ data: Data) throws { chunks.append(data) }
    }

    static func manyExchanges(_ count: Int) -> [Exchange] {
        (0..<count).map { index in
            var exchange = SampleExchanges.all[index % SampleExchanges.all.count]
            exchange.id = SampleExchanges.uuid(1000 + index)
            exchange.startedAt = SampleExchanges.at(Int64(index) * 1_000)
            return exchange
        }
    }

    @Test func streamingToAFileGivesTheSameBytesAsEncode() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("export.har")
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        let exchanges = Self.manyExchanges(50)
        let writer = HARWriter(sink: handle, bufferSize: 2048)
        try writer.begin()
        for exchange in exchanges { try writer.write(exchange) }
        try writer.finish()
        try handle.close()
        let written = try Data(contentsOf: url)
        #expect(written == HAR.encode(exchanges))
        #expect(writer.entryCount == 50)
        #expect(writer.bytesWritten == Int64(written.count))
        #expect(try HAR.decode(written) == exchanges)
    }

    @Test func bytesLeaveTheWriterInChunksAsEntriesArrive() throws {
        let sink = ChunkSink()
        let writer = HARWriter(sink: sink, bufferSize: 4096)
        let exchanges = Self.manyExchanges(200)
        var largestEntry = 0
        for exchange in exchanges {
            largestEntry = max(largestEntry, HAR.encode([exchange]).count)
            try writer.write(exchange)
        }
        let chunksBeforeFinish = sink.chunks.count
        try writer.finish()
        // Nothing is held back beyond one buffer plus one entry: memory does not grow with the export.
        #expect(chunksBeforeFinish > 10)
        #expect(sink.chunks.allSatisfy { $0.count < 4096 + largestEntry + 1024 })
        #expect(sink.chunks.reduce(Data(), +) == HAR.encode(exchanges))
    }

    @Test func entriesAreOnePerLine() throws {
        let text = String(decoding: HAR.encode(Self.manyExchanges(3)), as: UTF8.self)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 5)
        #expect(lines[0].hasSuffix("\"entries\":["))
        #expect(lines[1].hasPrefix("{\"startedDateTime\""))
        #expect(lines[2].hasPrefix(",{\"startedDateTime\"") == false)
        #expect(lines[1].hasSuffix("},"))
        #expect(lines[4] == "]}}")
    }
}
