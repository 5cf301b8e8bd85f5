import Foundation
import NetTapTestSupport
import Testing

/// `nettap list --limit N` pages newest first; `--after CURSOR` continues exactly where the page
/// ended, with no repeats and no gaps, and the last page offers no cursor.
@Suite struct PaginationTests {
    static func store(count: Int, in directory: TemporaryDirectory) throws -> String {
        let start = Date(timeIntervalSince1970: 1_780_000_000)
        // Two exchanges share each start time: the cursor must tell them apart.
        let exchanges = (1...count).map { number in
            SampleExchange(id: SampleExchange.id(number), startedAt: start.addingTimeInterval(Double(number / 2)),
                           url: "http://api.test/items/\(number)")
        }
        return try SampleExchange.store(exchanges, in: directory)
    }

    @Test func pagesFollowTheCursorToTheEnd() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(count: 7, in: directory)
        let all = try Nettap.listIDs(["--store", store])
        #expect(all.count == 7)

        var seen: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            let page = try Nettap.succeed(["list", "--store", store, "--json", "--limit", "3"] + (cursor.map { ["--after", $0] } ?? []))
                .jsonObject()
            let rows = try #require(page["exchanges"] as? [[String: Any]])
            seen += rows.compactMap { $0["id"] as? String }
            cursor = page["nextCursor"] as? String
            pages += 1
            #expect(rows.count == (pages < 3 ? 3 : 1))
            #expect((cursor != nil) == (pages < 3))
        } while cursor != nil && pages < 10
        #expect(pages == 3)
        #expect(seen == all)
    }

    @Test func aFullLastPageOffersNoCursor() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(count: 6, in: directory)
        let first = try Nettap.succeed(["list", "--store", store, "--limit", "3"])
        let next = try #require(first.lines.last, "\(first)")
        #expect(first.lines.count == 5)  // header, three rows, the cursor line
        try #require(next.hasPrefix("next page: --after "), "\(first)")
        let cursor = String(next.dropFirst("next page: --after ".count))
        let second = try Nettap.succeed(["list", "--store", store, "--limit", "3", "--after", cursor])
        #expect(second.lines.count == 4)
        #expect(!second.stdout.contains("next page"))
        // The URL column tells the rows apart (the sample IDs share their first 8 characters).
        let shown = (first.lines.dropFirst().prefix(3) + second.lines.dropFirst()).map { line in
            line.split(separator: " ").first { $0.hasPrefix("api.test/") }.map(String.init) ?? line
        }
        #expect(shown == (1...6).reversed().map { "api.test/items/\($0)" })
    }
}
