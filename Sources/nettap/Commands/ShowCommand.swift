import Foundation
import NetTapCore
import NetTapStore

/// `nettap show ID`: one exchange in full.
struct ShowCommand: Command {
    static let spec = CommandSpec(
        name: "show",
        abstract: "Show one exchange: headers, bodies, timing, redirects.",
        discussion: """
            ID is the exchange ID, or at least 4 of its characters from its start or its end, such
            as the short ID 'nettap list' prints (the last 8). Bodies are shown by content type: JSON indented, text as is,
            anything else as a hex dump of its first 256 bytes; truncated, redacted and unavailable
            bodies say so.

            Examples:
              nettap show 3F2A9C01
              nettap show 3F2A9C01 --json | jq .response.headers
            """,
        options: [
            .init(names: ["--json"], help: "Print the exchange JSON (docs/exchange-json.md)."),
            StoreOption.option,
        ],
        positionals: [.init(name: "ID", help: "The exchange ID, or a unique start or end of it.")]
    )

    let storePath: String
    let idPrefix: String
    let asJSON: Bool

    init(_ arguments: ParsedArguments) throws {
        storePath = StoreOption.path(arguments)
        idPrefix = arguments.positionals[0]
        let hex = idPrefix.filter { $0 != "-" }
        guard hex.count >= 4, hex.allSatisfy(\.isHexDigit), idPrefix.count <= 36 else {
            throw CLIError.usage(
                "ID '\(idPrefix)' must be an exchange ID or at least 4 of its hexadecimal characters, from its start or its end",
                command: Self.spec)
        }
        asJSON = arguments.flag("--json")
    }

    func run() async throws -> Int32 {
        let store = try StoreOption.open(path: storePath, create: false)
        guard let exchange = try store.exchange(shortID: idPrefix) else {
            throw CLIError.failure("no exchange with ID \(idPrefix) in \(storePath)")
        }
        if asJSON {
            Output.write(try ExchangeJSON.encoder(pretty: true).encode(exchange) + Data("\n".utf8))
        } else {
            Output.out(ExchangeDetail.render(exchange))
        }
        return 0
    }
}
