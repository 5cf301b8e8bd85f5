import Foundation
import NetTapCore

/// The instants of `TimingMetrics` by the names `_metrics` uses, in one fixed order shared by the
/// encoder and the decoder.
enum HARMetricsFields {
    static let names: [StaticString] = [
        "fetchStart", "domainLookupStart", "domainLookupEnd", "connectStart", "connectEnd",
        "secureConnectionStart", "secureConnectionEnd", "requestStart", "requestEnd",
        "responseStart", "responseEnd",
    ]

    // Computed: key paths are not Sendable, so they cannot be a stored global.
    static var keyPaths: [WritableKeyPath<TimingMetrics, Date?>] {
        [
        \.fetchStart, \.domainLookupStart, \.domainLookupEnd, \.connectStart, \.connectEnd,
        \.secureConnectionStart, \.secureConnectionEnd, \.requestStart, \.requestEnd,
        \.responseStart, \.responseEnd,
        ]
    }

    static func instants(of metrics: TimingMetrics) -> Zip2Sequence<[StaticString], [Date?]> {
        zip(names, keyPaths.map { metrics[keyPath: $0] })
    }
}
