import NetTapCore

/// The configuration in force when a request started, with the redactor built from it, shared by
/// reference between the request path, the recorder and the hub.
///
/// Why a class: `NetTap.Configuration` holds about a dozen reference-counted buffers (host lists,
/// the redaction policy's sets and matchers, the session id). Copying it costs a retain and a
/// release of each, and every request copied it several times, on every core, against the same
/// shared counters. Holding one immutable snapshot costs one retain, and a new snapshot is made
/// only when the app changes the configuration.
final class CaptureSettings: Sendable {
    let configuration: NetTap.Configuration
    let redactor: Redactor

    init(_ configuration: NetTap.Configuration) {
        self.configuration = configuration
        self.redactor = Redactor(policy: configuration.redaction)
    }
}
