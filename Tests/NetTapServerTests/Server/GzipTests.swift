import Foundation
import NetTapServer
import NetTapTestSupport
import Testing

/// gzip through zlib, cross-checked with the system `gzip` tool.
@Suite struct GzipTests {
    @Test(arguments: [0, 1, 100, 65_536, 1_000_000])
    func roundTripsAndProducesAGzipMember(size: Int) throws {
        let original = ScenarioBytes.bytes(count: size, seed: UInt64(size))
        let packed = try Gzip.compress(original)
        #expect(packed.prefix(3) == Data([0x1F, 0x8B, 0x08]), "gzip magic and deflate method")
        #expect(try Gzip.decompress(packed) == original)
    }

    @Test func systemGzipReadsWhatWeWriteAndWeReadWhatItWrites() throws {
        guard let gzip = ["/usr/bin/gzip", "/bin/gzip"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            Issue.record("the gzip command is needed for this cross-check (apt-get install gzip)")
            return
        }
        let directory = try TemporaryDirectory()
        let text = ScenarioBytes.text(count: 123_457)
        let ours = directory.file("ours.gz")
        try Gzip.compress(text, level: 9).write(to: ours)
        let decoder = try ChildProcess(executable: gzip, arguments: ["-d", "-k", ours.path])
        #expect(try decoder.waitForExit(timeout: 30) == .exited(0))
        #expect(try Data(contentsOf: directory.file("ours")) == text)

        let plain = directory.file("theirs")
        try text.write(to: plain)
        let encoder = try ChildProcess(executable: gzip, arguments: ["-k", "-9", plain.path])
        #expect(try encoder.waitForExit(timeout: 30) == .exited(0))
        #expect(try Gzip.decompress(Data(contentsOf: directory.file("theirs.gz"))) == text)
    }

    @Test func concatenatedMembersDecodeToConcatenatedData() throws {
        let first = Data("first member\n".utf8)
        let second = ScenarioBytes.bytes(count: 5_000, seed: 5)
        #expect(try Gzip.decompress(try Gzip.compress(first) + Gzip.compress(second)) == first + second)
    }

    @Test func truncatedAndCorruptInputAreErrors() throws {
        let packed = try Gzip.compress(ScenarioBytes.text(count: 10_000))
        #expect(throws: Gzip.Failure.self) { try Gzip.decompress(packed.prefix(packed.count / 2)) }
        #expect(throws: Gzip.Failure.self) { try Gzip.decompress(Data("not gzip at all".utf8)) }
    }

    @Test func outputLimitStopsDecompressionBombs() throws {
        let bomb = try Gzip.compress(Data(count: 5_000_000))
        #expect(bomb.count < 10_000)
        #expect(throws: Gzip.Failure(operation: "inflate", code: -5, message: "output exceeds 1000000 bytes")) {
            try Gzip.decompress(bomb, maxBytes: 1_000_000)
        }
    }
}
