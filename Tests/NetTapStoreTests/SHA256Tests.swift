import Foundation
import Testing

@testable import NetTapStore

@Suite("SHA256")
struct SHA256Tests {
    @Test(
        "FIPS 180-4 example vectors",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
            (
                "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
                "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
            ),
        ])
    func vectors(input: String, expected: String) {
        #expect(SHA256.hex(SHA256.hash(Data(input.utf8))) == expected)
    }

    @Test("one million times 'a'")
    func million() {
        let digest = SHA256.hash(Data(repeating: UInt8(ascii: "a"), count: 1_000_000))
        #expect(SHA256.hex(digest) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("agrees with sha256sum on every length around the block and padding boundaries")
    func againstSha256sum() throws {
        let tool = "/usr/bin/sha256sum"
        try #require(FileManager.default.isExecutableFile(atPath: tool), "sha256sum (coreutils) is needed for this test")
        let directory = try TemporaryDirectory()
        var generator = SystemRandomNumberGenerator()
        let lengths = Array(0 ... 130) + [255, 256, 1000, 4096, 65_537]
        var paths: [String] = []
        var expected: [String] = []
        for length in lengths {
            let data = Data((0 ..< length).map { _ in UInt8.random(in: 0 ... 255, using: &generator) })
            let path = directory.path("sample-\(length)")
            try data.write(to: URL(fileURLWithPath: path))
            paths.append(path)
            expected.append(SHA256.hex(SHA256.hash(data)))
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = paths
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let reported = text.split(separator: "\n").map { String($0.prefix(64)) }
        #expect(reported.count == lengths.count)
        for (index, length) in lengths.enumerated() where index < reported.count {
            #expect(reported[index] == expected[index], "length \(length)")
        }
    }
}
