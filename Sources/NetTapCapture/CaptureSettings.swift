import NetTapCore

/// The configuration in force when a request started, with the redactor built from it and the
/// labels set at the time, shared by reference between the request path, the recorder and the hub.
///
/// Why a class: `NetTap.Configuration` holds about a dozen reference-counted buffers (host lists,
/// the redaction policy's sets and matchers, the session id). Copying it costs a retain and a
/// release of each, and every request copied it several times, on every core, against the same
/// shared counters. Holding one immutable snapshot costs one retain, and a new snapshot is made
/// only when the app changes the configuration. The labels live in the same snapshot, so that a
/// request starting reads everything it is captured under with one lock, not one per kind of state.
final class CaptureSettings: Sendable {
    let configuration: NetTap.Configuration
    let redactor: Redactor
    /// The labels set with `NetTap.setLabel(_:forKey:)` when this snapshot was made.
    let labels: [String: String]

    init(_ configuration: NetTap.Configuration, labels: [String: String] = [:]) {
        self.configuration = configuration
        self.redactor = Redactor(policy: configuration.redaction)
        self.labels = labels
    }

    private init(configuration: NetTap.Configuration, redactor: Redactor, labels: [String: String]) {
        self.configuration = configuration
        self.redactor = redactor
        self.labels = labels
    }

    /// The same configuration and redactor with other labels.
    func replacingLabels(_ labels: [String: String]) -> CaptureSettings {
        CaptureSettings(configuration: configuration, redactor: redactor, labels: labels)
    }
}
