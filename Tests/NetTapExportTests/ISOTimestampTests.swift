import Foundation
import Testing
@testable import NetTapExport

/// Timestamps as HAR writers spell them, parsed to microseconds, and NetTap's own format.
@Suite struct ISOTimestampTests {
    /// 2025-03-14T09:26:53Z in microseconds since 1970, worked out by hand:
    /// 20,161 days since 1970-01-01 (55 years, 14 leap days, 72 days into 2025) plus 9:26:53.
    static let base: Int64 = (20_161 * 86_400 + 9 * 3600 + 26 * 60 + 53) * 1_000_000

    @Test(arguments: [
        ("2025-03-14T09:26:53Z", 0),
        ("2025-03-14T09:26:53.589Z", 589_000),
        ("2025-03-14T09:26:53.589123Z", 589_123),
        ("2025-03-14T09:26:53.5891234Z", 589_123),
        ("2025-03-14T09:26:53.5891236Z", 589_124),
        ("2025-03-14T09:26:53.5+00:00", 500_000),
        ("2025-03-14T10:26:53.589+01:00", 589_000),
        ("2025-03-14T04:26:53.589-05:00", 589_000),
        ("2025-03-14T10:56:53.589+0130", 589_000),
        ("2025-03-14 09:26:53.589z", 589_000),
    ] as [(String, Int64)])
    func parsesTheShapesToolsWrite(text: String, fraction: Int64) {
        #expect(ISOTimestamp.parse(text) == Self.base + fraction, "\(text)")
    }

    @Test(arguments: [
        "yesterday", "2025-03-14", "2025-03-14T09:26:53", "2025-03-14T09:26:53.589", "2025-13-14T09:26:53Z",
        "2025-02-29T09:26:53Z", "2025-03-14T24:00:00Z", "2025-03-14T09:26:53.Z", "2025-03-14T09:26:53Z trailing",
        "2025-03-14T09:26:53+5", "",
    ])
    func rejectsWhatIsNotAnInstant(text: String) {
        #expect(ISOTimestamp.parse(text) == nil, "\(text)")
    }

    @Test func formatsMillisecondsOrMicrosecondsInUTC() {
        #expect(ISOTimestamp.string(micros: Self.base + 589_000) == "2025-03-14T09:26:53.589Z")
        #expect(ISOTimestamp.string(micros: Self.base + 589_123) == "2025-03-14T09:26:53.589123Z")
        #expect(ISOTimestamp.string(micros: Self.base) == "2025-03-14T09:26:53.000Z")
        #expect(ISOTimestamp.string(micros: 0) == "1970-01-01T00:00:00.000Z")
        #expect(ISOTimestamp.string(micros: -1) == "1969-12-31T23:59:59.999999Z")
        #expect(ISOTimestamp.string(micros: 951_782_400_000_000) == "2000-02-29T00:00:00.000Z")
    }

    @Test func formattingAndParsingAreInverseAcrossTheCalendar() {
        // Every day boundary of four centuries, by steps that hit leap years and century rules.
        var micros = ISOTimestamp.minMicros
        while micros < ISOTimestamp.maxMicros - 86_400_000_000 * 997 {
            #expect(ISOTimestamp.parse(ISOTimestamp.string(micros: micros)) == micros)
            micros += 86_400_000_000 * 997 + 3_723_000_123
        }
    }

    @Test func extremeDatesAreClampedNotTrapped() {
        #expect(ISOTimestamp.micros(Date.distantFuture) <= ISOTimestamp.maxMicros)
        #expect(ISOTimestamp.micros(Date(timeIntervalSince1970: .infinity)) == ISOTimestamp.maxMicros)
        #expect(ISOTimestamp.micros(Date(timeIntervalSince1970: -.infinity)) == ISOTimestamp.minMicros)
        #expect(ISOTimestamp.micros(Date(timeIntervalSince1970: .nan)) == ISOTimestamp.maxMicros)
    }
}
