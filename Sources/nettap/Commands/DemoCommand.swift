import Foundation
import NetTapCapture
import NetTapCore
import NetTapRules

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `nettap demo`: realistic traffic against a loopback sample API, through both capture paths and
/// a few rules, then a table of what NetTap captured. No network is used.
struct DemoCommand: Command {
    static let spec = CommandSpec(
        name: "demo",
        abstract: "Run sample traffic through both capture paths and show what was captured.",
        discussion: """
            Starts a small shop API on 127.0.0.1, then makes the calls an app would: through
            NetTapSession and through the URLProtocol interceptor, with a streamed POST body, a
            redirect, a 404, a 500 and a timeout, and with rules that mock, rewrite, throttle and
            replay. Prints the captured exchanges as a table (or as exchange JSON with --json).
            """,
        options: [
            .init(names: ["--json"], help: "Print the captured exchanges as a JSON array instead of a table."),
            StoreOption.option,
            .init(names: ["--no-store"], help: "Keep nothing: do not write the exchanges to the store."),
        ]
    )

    let json: Bool
    /// Where captured exchanges are kept (then `nettap list` shows them); nil with --no-store.
    let storePath: String?

    init(_ arguments: ParsedArguments) throws {
        json = arguments.flag("--json")
        if arguments.flag("--no-store"), arguments.value("--store") != nil {
            throw CLIError.usage("use either --store or --no-store, not both", command: Self.spec)
        }
        storePath = arguments.flag("--no-store") ? nil : StoreOption.path(arguments)
    }

    func run() async throws -> Int32 {
        let api = try SampleAPI()
        defer { api.stop() }
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("nettap-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workspace) }

        let captured = RingBufferSink(capacity: 100)
        NetTap.shared.addSink(captured)
        defer { NetTap.shared.removeSink(captured) }
        let storage = try storePath.map(CaptureStorage.init(path:))

        let base = api.baseURL.absoluteString
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        let session = NetTapSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let intercepted = URLSessionConfiguration.ephemeral
        NetTap.enable(on: intercepted)
        let thirdParty = URLSession(configuration: intercepted)
        defer { thirdParty.finishTasksAndInvalidate() }

        // 1. The app's own calls, through NetTapSession, labelled by screen.
        NetTap.shared.setLabel("Catalog", forKey: "screen")
        _ = try? await session.data(from: try endpoint(base, "/api/products"))
        _ = try? await session.data(from: try endpoint(base, "/api/products/9"))
        NetTap.shared.setLabel("Login", forKey: "screen")
        var login = URLRequest(url: try endpoint(base, "/api/login"))
        login.httpMethod = "POST"
        login.setValue("application/json", forHTTPHeaderField: "Content-Type")
        login.httpBody = Data(#"{"user":"ada","password":"lovelace"}"#.utf8)
        _ = try? await session.data(for: login)
        NetTap.shared.setLabel("Checkout", forKey: "screen")
        var order = URLRequest(url: try endpoint(base, "/api/orders"))
        order.httpMethod = "POST"
        order.setValue("application/json", forHTTPHeaderField: "Content-Type")
        order.httpBodyStream = InputStream(data: Data(#"{"items":[{"id":1,"quantity":2}],"note":"gift wrap"}"#.utf8))
        _ = try? await session.data(for: order)
        _ = try? await session.data(from: try endpoint(base, "/api/legacy/cart"))
        var slow = URLRequest(url: try endpoint(base, "/api/slow"))
        slow.timeoutInterval = 1  // corelibs truncates timeouts to whole seconds (docs/linux-foundation-notes.md)
        _ = try? await session.data(for: slow)

        // 2. A third-party SDK's calls on its own URLSession, seen by the URLProtocol interceptor.
        NetTap.shared.setLabel("Reports", forKey: "screen")
        _ = try? await thirdParty.data(from: try endpoint(base, "/api/reports"))
        _ = try? await thirdParty.data(from: try endpoint(base, "/api/products/2"))

        // 3. Rules: record a call, then mock, rewrite, throttle and replay.
        NetTap.shared.setLabel("Rules", forKey: "screen")
        let fixture = workspace.appendingPathComponent("stock.har")
        try install(#"""
            {"version": 1, "rules": [{"name": "record stock", "match": {"path": "/api/stock"}, "actions": [{"record": {"har": "\#(fixture.path)"}}]}]}
            """#, in: workspace)
        _ = try? await session.data(from: try endpoint(base, "/api/stock"))
        await NetTap.shared.drain()
        try install(#"""
            {"version": 1, "rules": [
              {"name": "recommendations mock", "match": {"path": "/api/recommendations"},
               "actions": [{"mock": {"status": 200, "json": {"items": [3, 1]}}}]},
              {"name": "staging", "match": {"host": "api.staging.invalid"},
               "actions": [{"rewrite": {"scheme": "http", "host": "127.0.0.1", "port": \#(api.port)}}]},
              {"name": "slow images", "match": {"path": "/images/*"},
               "actions": [{"throttle": {"latency": 0.1, "downloadBytesPerSecond": 200000}}]},
              {"name": "stock offline", "match": {"path": "/api/stock"},
               "actions": [{"replay": {"har": "\#(fixture.path)", "reuseLast": true}}]}
            ]}
            """#, in: workspace)
        defer { NetTap.shared.rules.clear() }
        _ = try? await session.data(from: try endpoint(base, "/api/recommendations"))
        _ = try? await session.data(from: try endpoint("http://api.staging.invalid", "/api/cart"))
        _ = try? await thirdParty.data(from: try endpoint(base, "/images/hero.jpg"))
        _ = try? await thirdParty.data(from: try endpoint(base, "/api/stock"))

        NetTap.shared.setLabel(nil, forKey: "screen")
        await NetTap.shared.drain()
        let kept = try storage?.finish()
        let exchanges = captured.exchanges.sorted { $0.startedAt < $1.startedAt }
        if json {
            Output.write(try ExchangeJSON.encoder(pretty: true).encode(exchanges) + Data("\n".utf8))
        } else {
            Output.out("NetTap demo: sample shop API at \(base) (loopback only)\n")
            Output.out(ExchangeTable.demo.render(exchanges))
            let failures = exchanges.filter(\.isFailure).count
            let ruled = exchanges.filter { !$0.modifications.isEmpty }.count
            Output.out("\n\(exchanges.count) exchanges captured: \(failures) failed, \(ruled) shaped by rules; secrets redacted before capture.")
            if let kept, let path = storePath {
                Output.out("\(kept) kept in \(path): try 'nettap list --store \(path)' or 'nettap export --format har --store \(path)'.")
            }
        }
        return 0
    }

    private func endpoint(_ base: String, _ path: String) throws -> URL {
        guard let url = URL(string: base + path) else { throw CLIError.failure("bad sample URL \(base + path)") }
        return url
    }

    private func install(_ json: String, in directory: URL) throws {
        let file = directory.appendingPathComponent("rules.json")
        try Data(json.utf8).write(to: file)
        try NetTap.shared.rules.load(contentsOf: file)
    }
}
