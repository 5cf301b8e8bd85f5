import Testing

@testable import NetTapStore

@Suite("RetentionPolicy parsing of ages and sizes")
struct RetentionPolicyParsingTests {
    @Test("ages", arguments: [("7d", 604_800.0), ("12h", 43_200), ("30m", 1800), ("45s", 45), ("2w", 1_209_600), ("1.5h", 5400), (" 0d ", 0)])
    func ages(text: String, seconds: Double) throws {
        #expect(try RetentionPolicy.parseAge(text) == seconds)
    }

    @Test("sizes", arguments: [("200MB", Int64(200_000_000)), ("1.5GB", 1_500_000_000), ("512KiB", 524_288), ("1000", 1000), ("3mib", 3_145_728), ("10 kb", 10_000), ("7b", 7)])
    func sizes(text: String, bytes: Int64) throws {
        #expect(try RetentionPolicy.parseSize(text) == bytes)
    }

    @Test("nonsense is refused with a message that quotes it", arguments: ["", "7", "d", "-1d", "7y", "abcMB", "-5MB", "1e30GB", "nan"])
    func refused(text: String) {
        let age = #expect(throws: ExchangeStoreError.self) { try RetentionPolicy.parseAge(text) }
        #expect(age?.description.contains("\"\(text)\"") == true)
        if text != "7" {
            let size = #expect(throws: ExchangeStoreError.self) { try RetentionPolicy.parseSize(text) }
            #expect(size?.description.contains("\"\(text)\"") == true)
        }
    }
}
