import Foundation
import NetTapCore

/// Writes `--json` output: pretty-printed, keys sorted, slashes unescaped, one document per run.
enum JSONPrinter {
    /// Prints `value` to stdout as JSON, with the exchange JSON contract's date format.
    static func print<T: Encodable>(_ value: T) throws {
        let encoder = ExchangeJSON.encoder(pretty: true)
        Output.write(try encoder.encode(value) + Data("\n".utf8))
    }
}
