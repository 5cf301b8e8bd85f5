import Foundation
import NetTapTestSupport
import Testing

/// Where the commands find the store: `--store PATH`, else `$NETTAP_STORE`, else
/// `./nettap.sqlite`; reading commands never create one, and a file that is not a store is named.
@Suite struct StoreLocationTests {
    static let sample = [
        SampleExchange(id: SampleExchange.id(1), startedAt: Date(timeIntervalSince1970: 1_780_000_000), url: "http://api.test/a")
    ]

    @Test func environmentAndCurrentDirectoryDefaults() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("sample.ndjson")
        try SampleExchange.ndjson(Self.sample).write(to: file)

        // No --store, no NETTAP_STORE: ./nettap.sqlite in the current directory.
        let imported = try Nettap.succeed(["import", file.path], currentDirectory: directory.url)
        #expect(imported.stdout == "Imported 1 exchange from \(file.path) into ./nettap.sqlite.")
        #expect(FileManager.default.fileExists(atPath: directory.file("nettap.sqlite").path))
        #expect(try Nettap.succeed(["list", "--json"], currentDirectory: directory.url).stdout.contains(SampleExchange.id(1)))

        // NETTAP_STORE names another file; --store wins over it.
        let other = directory.file("other.sqlite").path
        try Nettap.succeed(["import", file.path], environment: ["NETTAP_STORE": other], currentDirectory: directory.url)
        #expect(try Nettap.count(store: other) == 1)
        let empty = directory.file("empty.ndjson")
        try Data().write(to: empty)
        try Nettap.succeed(["import", empty.path, "--store", directory.file("third.sqlite").path],
                           environment: ["NETTAP_STORE": other], currentDirectory: directory.url)
        #expect(try Nettap.count(store: directory.file("third.sqlite").path) == 0)
        #expect(try Nettap.count(store: other) == 1)
    }

    @Test(arguments: [["list"], ["show", "ABCD"], ["export"], ["stats"], ["prune", "--max-count", "1"]])
    func readingCommandsNeverCreateAStore(arguments: [String]) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("missing.sqlite").path
        let result = try Nettap.run(arguments + ["--store", path])
        #expect(result.status == .exited(1), "\(arguments): \(result)")
        #expect(result.stderr == "nettap \(arguments[0]): error: no NetTap store at \(path) (pass --store PATH or set NETTAP_STORE)\n")
        #expect(result.stdout.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func aFileThatIsNotAStoreIsNamed() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("notes.txt").path
        try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: URL(fileURLWithPath: path))
        let result = try Nettap.run(["list", "--store", path])
        #expect(result.status == .exited(1))
        #expect(result.stderr.hasPrefix("nettap list: error: cannot open the store \(path): "), "\(result)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }
}
