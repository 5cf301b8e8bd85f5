import Foundation
import NetTapTestSupport
import Testing

/// The deterministic byte generator, including agreement with the TLS server's Python copy.
@Suite struct ScenarioBytesTests {
    @Test func sameSeedSameBytesOtherSeedOtherBytes() {
        #expect(ScenarioBytes.bytes(count: 4_096, seed: 1) == ScenarioBytes.bytes(count: 4_096, seed: 1))
        #expect(ScenarioBytes.bytes(count: 4_096, seed: 1) != ScenarioBytes.bytes(count: 4_096, seed: 2))
        #expect(ScenarioBytes.bytes(count: 0, seed: 1).isEmpty)
        #expect(ScenarioBytes.bytes(count: 13, seed: 5) == ScenarioBytes.bytes(count: 100, seed: 5).prefix(13))
    }

    @Test func bytesLookRandom() {
        let sample = ScenarioBytes.bytes(count: 256_000, seed: 99)
        var histogram = [Int](repeating: 0, count: 256)
        for byte in sample { histogram[Int(byte)] += 1 }
        // 1,000 expected per value; a broken generator is far off.
        #expect(histogram.allSatisfy { (800...1_200).contains($0) })
    }

    @Test func streamInOddPiecesEqualsWhole() {
        var stream = ScenarioBytes.Stream(seed: 42)
        var pieces = Data()
        for size in [1, 7, 8, 9, 0, 3, 64, 1_000, 5] { pieces.append(stream.next(size)) }
        #expect(pieces == ScenarioBytes.bytes(count: pieces.count, seed: 42))
    }

    @Test func textIsNumberedLinesCutAtCount() {
        let text = String(decoding: ScenarioBytes.text(count: 150), as: UTF8.self)
        #expect(text.utf8.count == 150)
        #expect(text.hasPrefix("line 000001: the quick brown fox jumps over the lazy dog\nline 000002: "))
        #expect(ScenarioBytes.text(count: 0).isEmpty)
    }

    @Test func pythonCopyOfTheGeneratorAgrees() throws {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        let candidates = path.split(separator: ":").map { "\($0)/python3" }
        guard let python = candidates.first(where: FileManager.default.isExecutableFile(atPath:)) else {
            Issue.record("python3 is needed to check the TLS server's copy of the generator")
            return
        }
        let directory = try TemporaryDirectory()
        let script = directory.file("generator.py")
        // The TLS server script with its entry point swapped for a dump of the generator output.
        let source = TLSTestServer.script.replacingOccurrences(of: "\nmain()", with: "\n")
            + "\nimport binascii\nfor seed, count in ((0, 64), (7, 1001), (18446744073709551615, 33)):\n"
            + "    print(binascii.hexlify(scenario_bytes(count, seed)).decode())\n"
        try Data(source.utf8).write(to: script)
        let child = try ChildProcess(executable: python, arguments: [script.path])
        let lines = try child.remainingLines(timeout: 30)
        #expect(try child.waitForExit(timeout: 30) == .exited(0), "stderr: \(child.standardErrorText)")
        let expected = [(UInt64(0), 64), (UInt64(7), 1_001), (UInt64.max, 33)].map { seed, count in
            ScenarioBytes.bytes(count: count, seed: seed).map { String(format: "%02x", $0) }.joined()
        }
        #expect(lines == expected)
    }
}
