import Foundation
import NetTapTestSupport
import Testing

/// `nettap prune`: removes the oldest exchanges beyond a count, an age or a size, and says what it removed.
@Suite struct PruneCommandTests {
    static func exchanges(count: Int, now: Date, spacing: TimeInterval) -> [SampleExchange] {
        (1...count).map { number in
            // Older first; each with its own response body, so that bodies go with their exchanges.
            var exchange = SampleExchange(
                id: SampleExchange.id(number), startedAt: now.addingTimeInterval(-Double(count - number + 1) * spacing),
                url: "http://api.test/items/\(number)")
            exchange.responseBody = .init(text: "item \(number)\n", size: "item \(number)\n".utf8.count, contentType: "text/plain")
            return exchange
        }
    }

    @Test func byCountKeepsTheNewest() throws {
        let directory = try TemporaryDirectory()
        let store = try SampleExchange.store(Self.exchanges(count: 10, now: Date(), spacing: 60), in: directory)
        let result = try Nettap.succeed(["prune", "--store", store, "--max-count", "4"])
        #expect(result.stdout.hasPrefix("Removed 6 exchanges and 6 bodies; 4 remain. In use: "), "\(result)")
        #expect(try Nettap.listIDs(["--store", store]) == (7...10).reversed().map { SampleExchange.id($0) })

        let again = try Nettap.succeed(["prune", "--store", store, "--max-count", "4"])
        #expect(again.stdout == "Nothing to remove: the store is within the limits (4 exchanges).")
    }

    @Test func byAgeWithJSONReport() throws {
        let directory = try TemporaryDirectory()
        // One a day for five days: the three older than 2.5 days go.
        let store = try SampleExchange.store(Self.exchanges(count: 5, now: Date(), spacing: 86_400), in: directory)
        let report = try Nettap.succeed(["prune", "--store", store, "--older-than", "60h", "--json"]).jsonObject()
        #expect(report["removedExchanges"] as? Int == 3)
        #expect(report["removedBodies"] as? Int == 3)
        #expect(report["remainingExchanges"] as? Int == 2)
        let before = try #require(report["usedBytesBefore"] as? Int)
        let after = try #require(report["usedBytesAfter"] as? Int)
        #expect(after <= before)
        #expect(try Nettap.listIDs(["--store", store]) == [5, 4].map { SampleExchange.id($0) })
    }

    @Test func bySizeShrinksTheStore() throws {
        let directory = try TemporaryDirectory()
        // The store deletes by size in chunks of 50 exchanges, so the store holds several chunks.
        let count = 200
        var exchanges = Self.exchanges(count: count, now: Date(), spacing: 1)
        for index in exchanges.indices {
            // Distinct 5 KB bodies that compress poorly enough to take real pages.
            let text = (0..<1000).map { String(format: "%05d", ($0 * 7919 + index * 104_729) % 99_991) }.joined()
            exchanges[index].responseBody = .init(text: text, size: text.utf8.count, contentType: "text/plain")
        }
        let store = try SampleExchange.store(exchanges, in: directory)
        let stats = try Nettap.succeed(["stats", "--store", store, "--json"]).jsonObject()
        let used = try #require((stats["store"] as? [String: Any])?["usedBytes"] as? Int)
        let limit = used / 2
        let report = try Nettap.succeed(["prune", "--store", store, "--max-size", "\(limit)", "--json"]).jsonObject()
        let removed = try #require(report["removedExchanges"] as? Int)
        #expect(removed > 0 && removed < count)
        #expect(try #require(report["usedBytesAfter"] as? Int) <= limit)
        // The oldest went first.
        let kept = try Nettap.listIDs(["--store", store])
        #expect(kept == (removed + 1...count).reversed().map { SampleExchange.id($0) })
    }

    @Test func missingStoreIsAnError() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("absent.sqlite").path
        let result = try Nettap.run(["prune", "--store", path, "--max-count", "1"])
        #expect(result.status == .exited(1))
        #expect(result.stderr == "nettap prune: error: no NetTap store at \(path) (pass --store PATH or set NETTAP_STORE)\n")
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
