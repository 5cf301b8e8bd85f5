import Foundation
import NetTapTestSupport
import Testing

/// `nettap stats` over captured traffic: counts by status class, errors by category, bytes, the
/// slowest, the time span and the store file, in text and JSON.
@Suite struct StatsCommandTests {
    @Test func figuresMatchTheCapturedTraffic() throws {
        let traffic = try CapturedTraffic()
        let page = try Nettap.succeed(["list", "--store", traffic.store, "--json", "--limit", "100"]).jsonObject()
        let rows = try #require(page["exchanges"] as? [[String: Any]])
        let stats = try Nettap.succeed(["stats", "--store", traffic.store, "--json", "--slowest", "3"]).jsonObject()

        let requests = traffic.requests
        let count = requests.count
        #expect(stats["exchanges"] as? Int == count)
        let classes = try #require(stats["statusClasses"] as? [String: Int])
        #expect(classes["2xx"] == requests.filter { ($0.status ?? 0) / 100 == 2 }.count)
        #expect(classes["4xx"] == 2)
        #expect(classes["5xx"] == 0)
        #expect(stats["noResponse"] as? Int == 1)
        #expect(stats["failures"] as? Int == 3)
        #expect(stats["errors"] as? [String: Int] == ["http-none": 1])
        #expect(stats["requestBytes"] as? Int == 2 * (CapturedTraffic.jsonBody.utf8.count + CapturedTraffic.binaryBody.count))
        #expect(stats["responseBytes"] as? Int == rows.compactMap { $0["responseSize"] as? Int }.reduce(0, +))
        #expect(stats["newest"] as? String == rows.first?["startedAt"] as? String)
        #expect(stats["oldest"] as? String == rows.last?["startedAt"] as? String)

        let slowest = try #require(stats["slowest"] as? [[String: Any]])
        let durations = rows.compactMap { $0["duration"] as? Double }.sorted(by: >)
        #expect(slowest.compactMap { $0["duration"] as? Double } == Array(durations.prefix(3)))

        let store = try #require(stats["store"] as? [String: Any])
        #expect(store["exchanges"] as? Int == count)
        #expect(store["path"] as? String == traffic.store)
        let fileBytes = try #require(store["fileBytes"] as? Int)
        let onDisk = [traffic.store, traffic.store + "-wal"].reduce(0) { total, path in
            total + ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
        }
        #expect(fileBytes == onDisk)
    }

    @Test func textReport() throws {
        let traffic = try CapturedTraffic()
        let result = try Nettap.succeed(["stats", "--store", traffic.store])
        let lines = result.lines
        let count = traffic.requests.count
        let successes = traffic.requests.filter { ($0.status ?? 0) / 100 == 2 }.count
        #expect(lines.first == "Exchanges  \(count)")
        #expect(lines.contains("Status     2xx \(successes), 4xx 2, 5xx 0, no response 1"))
        #expect(lines.contains("Failures   3"))
        #expect(lines.contains("Errors     http-none 1"))
        let slowest = try #require(lines.firstIndex(of: "Slowest"))
        #expect(lines[(slowest + 1)...].prefix { $0.hasPrefix("  ") }.count == 5)
        #expect(lines.contains("Store      \(traffic.store) (schema 2)"))

        let filtered = try Nettap.succeed(["stats", "--store", traffic.store, "--status", "4xx", "--slowest", "0"])
        #expect(filtered.lines.first == "Exchanges  2 (of \(count) in the store)")
        #expect(!filtered.lines.contains("Slowest"))
    }
}
