import Foundation
@testable import NetTapServer
import Testing

/// The Date header's hand-rolled calendar arithmetic against Foundation's formatter.
@Suite struct HTTPDateTests {
    @Test func epochIsThursday() {
        #expect(HTTPDate.format(epochSecond: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
    }

    @Test func agreesWithFoundationAcrossCenturies() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        // Leap days, century years and the far past and future, plus a sweep of arbitrary seconds.
        var seconds = [951_782_400, 951_868_799, 4_107_542_400, -2_208_988_800, 1_709_164_800, -1, 253_402_300_799]
        var value: Int64 = 12_345
        for _ in 0..<2_000 {
            value = (value &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407) & 0x7FFF_FFFF_FFFF
            seconds.append(Int(value % 8_000_000_000) - 2_000_000_000)
        }
        for second in seconds {
            let expected = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(second)))
            #expect(HTTPDate.format(epochSecond: second) == expected, "second \(second)")
        }
    }
}
