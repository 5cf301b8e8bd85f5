import Foundation
import NetTapCore
import NetTapExport
import NetTapTestSupport
import Testing

/// `nettap import` over the hand-written HAR fixtures of the export tests: every malformed file
/// is refused with the same message the library gives (which HARMalformedImportTests pins), the
/// store it was aimed at keeps exactly what it held; files shaped like those of Chrome, Firefox,
/// mitmproxy and Charles import, list and export again.
@Suite struct ImportFixtureCommandTests {
    /// Tests/NetTapExportTests/Fixtures, read from the source tree.
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("NetTapExportTests/Fixtures")

    static let malformedFiles: [String] =
        ((try? FileManager.default.contentsOfDirectory(atPath: fixtures.appendingPathComponent("malformed").path)) ?? [])
        .filter { $0.hasSuffix(".har") }.sorted()

    @Test func theMalformedFixturesAreThere() {
        #expect(Self.malformedFiles.count >= 20, "found \(Self.malformedFiles) in \(Self.fixtures.path)")
    }

    @Test(arguments: malformedFiles)
    func malformedFixtureIsRefusedAndTheStoreKeepsWhatItHeld(file: String) throws {
        let path = Self.fixtures.appendingPathComponent("malformed").appendingPathComponent(file).path
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let expected: String
        do {
            _ = try HAR.decode(data)
            Issue.record("\(file) decodes; it is not malformed")
            return
        } catch {
            expected = error.description
        }

        let directory = try TemporaryDirectory()
        let start = Date(timeIntervalSince1970: 1_780_000_000)
        let store = try SampleExchange.store(
            [SampleExchange(id: SampleExchange.id(1), startedAt: start, url: "http://kept.test/1"),
             SampleExchange(id: SampleExchange.id(2), startedAt: start + 1, url: "http://kept.test/2")],
            in: directory)
        let before = try Data(contentsOf: URL(fileURLWithPath: store))

        let result = try Nettap.run(["import", "--store", store, path])
        #expect(result.status == .exited(1), "\(file): \(result)")
        #expect(result.stdout.isEmpty, "\(file): \(result)")
        #expect(result.stderr == "nettap import: error: \(path): \(expected); nothing was imported\n",
                "\(file): \(result.stderr)")

        #expect(try Nettap.listIDs(["--store", store]) == [SampleExchange.id(2), SampleExchange.id(1)], "\(file)")
        let check = try Nettap.succeed(["stats", "--json", "--store", store]).jsonObject()
        #expect(check["exchanges"] as? Int == 2, "\(file)")
        // The refused import rolled back: the main database file is byte for byte what it was
        // (the WAL was checkpointed when the first import closed the store).
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before, "\(file): the store file changed")
    }

    @Test(arguments: ["chrome.har", "firefox.har", "mitmproxy.har", "charles.har"])
    func toolHARImportsListsAndExportsAgain(file: String) throws {
        let path = Self.fixtures.appendingPathComponent(file).path
        let decoded = try HAR.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
        try #require(!decoded.isEmpty)

        let directory = try TemporaryDirectory()
        let store = directory.file("tool.sqlite").path
        let noun = decoded.count == 1 ? "exchange" : "exchanges"
        let imported = try Nettap.succeed(["import", "--store", store, path])
        #expect(imported.stdout == "Imported \(decoded.count) \(noun) from \(path) into \(store).")

        let page = try Nettap.succeed(["list", "--store", store, "--json", "--limit", "1000"]).jsonObject()
        let rows = try #require(page["exchanges"] as? [[String: Any]])
        #expect(rows.count == decoded.count)
        // Newest first; ties keep no promised order, so compare as sorted multisets.
        let listed = rows.map { "\($0["method"] as? String ?? "?") \($0["url"] as? String ?? "?") \($0["status"] as? Int ?? -1)" }
        let expected = decoded.map { "\($0.request.method) \($0.request.url) \($0.response?.statusCode ?? -1)" }
        #expect(listed.sorted() == expected.sorted(), "\(file)")

        // What the store gives back as HAR is what the file said, entry for entry. Foreign entries
        // carry no NetTap id, so they pair up by start time, method and URL.
        let exported = directory.file("again.har")
        try Nettap.succeed(["export", "--store", store, "--format", "har", "-o", exported.path])
        func ordered(_ exchanges: [Exchange]) -> [Exchange] {
            exchanges.sorted {
                ($0.startedAt.timeIntervalSince1970, $0.request.method, $0.request.url)
                    < ($1.startedAt.timeIntervalSince1970, $1.request.method, $1.request.url)
            }
        }
        let again = ordered(try HAR.decode(try Data(contentsOf: exported)))
        try #require(again.count == decoded.count)
        for (back, exchange) in zip(again, ordered(decoded)) {
            let url = exchange.request.url
            #expect(back.request.url == exchange.request.url, "\(file)")
            #expect(back.request.headers == exchange.request.headers, "\(file): \(url)")
            #expect(back.request.body?.data == exchange.request.body?.data, "\(file): \(url)")
            #expect(back.response?.statusCode == exchange.response?.statusCode, "\(file): \(url)")
            #expect(back.response?.headers == exchange.response?.headers, "\(file): \(url)")
            #expect(back.response?.body?.data == exchange.response?.body?.data, "\(file): \(url)")
            #expect(abs(back.startedAt.timeIntervalSince(exchange.startedAt)) < 0.001, "\(file): \(url)")
            #expect(abs((back.duration ?? -1) - (exchange.duration ?? -1)) < 0.000_001, "\(file): \(url)")
        }
    }
}
