/// Named throttle profiles modelled on real networks. docs/rules.md gives each figure's source.
///
/// Bandwidths are in bytes per second with 1 KB = 1,000 bytes (so 128 kbit/s = 16,000 B/s).
public enum ThrottlePreset {
    /// The presets by name, in the order docs/rules.md lists them.
    public static let all: [(name: String, profile: ThrottleProfile)] = [
        // Down: OHHTTPStubs GPRS (56 kbit/s). Up and latency: NetTap's assumption for a 2G link.
        ("gprs", ThrottleProfile(preset: "gprs", latency: 0.5, downloadBytesPerSecond: 7_000, uploadBytesPerSecond: 3_500)),
        // Down: OHHTTPStubs EDGE (128 kbit/s). Up and latency: NetTap's assumption.
        ("edge", ThrottleProfile(preset: "edge", latency: 0.3, downloadBytesPerSecond: 16_000, uploadBytesPerSecond: 8_000)),
        // Down: OHHTTPStubs 3G (3,200 kbit/s). Up 330 kbit/s and 100 ms: Network Link Conditioner "3G".
        ("3g", ThrottleProfile(preset: "3g", latency: 0.1, downloadBytesPerSecond: 400_000, uploadBytesPerSecond: 41_250)),
        // Network Link Conditioner "LTE": 50 Mbit/s down, 10 Mbit/s up, 50 ms.
        ("lte", ThrottleProfile(preset: "lte", latency: 0.05, downloadBytesPerSecond: 6_250_000, uploadBytesPerSecond: 1_250_000)),
        // Down and up: OHHTTPStubs Wifi (12,000 kbit/s); 20 ms latency and 5% failures: NetTap's assumption.
        ("wifi-lossy", ThrottleProfile(
            preset: "wifi-lossy", latency: 0.02, downloadBytesPerSecond: 1_500_000, uploadBytesPerSecond: 1_500_000,
            failureProbability: 0.05, failureError: .networkConnectionLost)),
        // Network Link Conditioner "Very Bad Network": 1 Mbit/s both ways, 500 ms, 10% packet loss
        // (here: 10% of requests fail).
        ("very-bad", ThrottleProfile(
            preset: "very-bad", latency: 0.5, downloadBytesPerSecond: 125_000, uploadBytesPerSecond: 125_000,
            failureProbability: 0.1, failureError: .networkConnectionLost)),
    ]

    /// The preset called `name`, or nil.
    public static func named(_ name: String) -> ThrottleProfile? {
        all.first { $0.name == name }?.profile
    }

    /// The preset names, for error messages.
    public static var names: [String] { all.map(\.name) }
}
