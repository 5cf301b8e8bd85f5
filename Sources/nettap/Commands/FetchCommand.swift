import Foundation
import NetTapCapture
import NetTapCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `nettap fetch`: performs requests through NetTap, like a small curl that also keeps what it saw.
struct FetchCommand: Command {
    static let spec = CommandSpec(
        name: "fetch",
        abstract: "Perform HTTP requests through NetTap and print the response body.",
        discussion: """
            Each URL is requested in turn through the chosen capture path; response bodies go to stdout
            (or -o FILE) as curl writes them, and the captured exchanges are kept in the store (see
            --store) for 'nettap list', 'show' and 'export'. Exit status 0 when every request got a
            response (of any status), 1 with a one-line message on a transport error, 2 on a usage error.
            """,
        options: [
            .init(names: ["-X", "--request"], valueName: "METHOD", help: "HTTP method (default GET, or POST with a body)."),
            .init(names: ["-H", "--header"], valueName: "NAME: VALUE", help: "Add a request header.", isRepeatable: true),
            .init(names: ["-d", "--data"], valueName: "DATA", help: "Send DATA as the request body."),
            .init(names: ["--data-binary"], valueName: "@FILE", help: "Send the bytes of FILE as the request body."),
            .init(names: ["--body-stream"], help: "Send the body as an httpBodyStream instead of httpBody."),
            .init(names: ["--via"], valueName: "PATH", help: "Capture path: 'session' (NetTapSession, default), 'protocol' (URLProtocol on a session), or 'shared' (URLSession.shared after NetTap.registerGlobally())."),
            .init(names: ["--timeout"], valueName: "SECONDS", help: "Request timeout in seconds (default 60)."),
            .init(names: ["-o", "--output"], valueName: "FILE", help: "Write response bodies to FILE instead of stdout."),
            .init(names: ["--exchange-json"], valueName: "FILE", help: "Write the captured exchanges to FILE as a JSON array."),
            .init(names: ["--rules"], valueName: "FILE", help: "Apply the rules in FILE (docs/rules.md) to the requests."),
            StoreOption.option,
            .init(names: ["--no-store"], help: "Keep nothing: do not write the exchanges to the store."),
        ],
        positionals: [.init(name: "URL", help: "The URL to request.", isRepeatable: true)]
    )

    enum Via: String { case session, `protocol`, shared }

    let urls: [URL]
    let method: String?
    let headers: [(String, String)]
    let body: Data?
    let bodyAsStream: Bool
    let via: Via
    let timeout: TimeInterval
    let outputPath: String?
    let exchangeJSONPath: String?
    let rulesFile: URL?
    /// Where captured exchanges are kept; nil with --no-store.
    let storePath: String?

    init(_ arguments: ParsedArguments) throws {
        urls = try arguments.positionals.map { text in
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
                throw CLIError.usage("'\(text)' is not an http or https URL", command: Self.spec)
            }
            return url
        }
        method = arguments.value("-X")
        headers = try arguments.allValues("-H").map { line in
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw CLIError.usage("header '\(line)' must look like 'Name: value'", command: Self.spec)
            }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            return (name, value)
        }
        if arguments.value("-d") != nil, arguments.value("--data-binary") != nil {
            throw CLIError.usage("use either -d or --data-binary, not both", command: Self.spec)
        }
        if let data = arguments.value("-d") {
            body = Data(data.utf8)
        } else if let binary = arguments.value("--data-binary") {
            guard binary.hasPrefix("@") else {
                throw CLIError.usage("--data-binary expects @FILE, not '\(binary)'", command: Self.spec)
            }
            let path = String(binary.dropFirst())
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw CLIError.failure("cannot read body file '\(path)'", exitCode: 2)
            }
            body = contents
        } else {
            body = nil
        }
        bodyAsStream = arguments.flag("--body-stream")
        if bodyAsStream, body == nil {
            throw CLIError.usage("--body-stream needs a body (-d or --data-binary)", command: Self.spec)
        }
        let viaText = arguments.value("--via") ?? "session"
        guard let via = Via(rawValue: viaText) else {
            throw CLIError.usage("--via must be 'session', 'protocol' or 'shared', not '\(viaText)'", command: Self.spec)
        }
        self.via = via
        let timeout = try arguments.double("--timeout") ?? 60
        guard timeout > 0 else { throw CLIError.usage("--timeout must be greater than 0", command: Self.spec) }
        if URLLoadingPlatform.timeoutsAreWholeSeconds, timeout != timeout.rounded(.down) {
            // Passing it on would silently give a shorter timeout, or none at all below 1 s.
            throw CLIError.usage(
                "--timeout \(arguments.value("--timeout") ?? "\(timeout)"): URLSession on Linux counts timeouts in whole seconds "
                    + "(it would use \(Int(timeout)), and 0 means none); give a whole number of seconds",
                command: Self.spec)
        }
        self.timeout = timeout
        outputPath = arguments.value("-o")
        exchangeJSONPath = arguments.value("--exchange-json")
        rulesFile = arguments.value("--rules").map { URL(fileURLWithPath: $0) }
        if arguments.flag("--no-store"), arguments.value("--store") != nil {
            throw CLIError.usage("use either --store or --no-store, not both", command: Self.spec)
        }
        storePath = arguments.flag("--no-store") ? nil : StoreOption.path(arguments)
    }

    func run() async throws -> Int32 {
        if let rulesFile {
            do {
                try NetTap.shared.rules.load(contentsOf: rulesFile)
            } catch {
                throw CLIError.failure("\(error)")
            }
        }
        let recent = RingBufferSink(capacity: max(1, urls.count))
        NetTap.shared.addSink(recent)
        defer { NetTap.shared.removeSink(recent) }
        let storage = try storePath.map(CaptureStorage.init(path:))

        let output = try openOutput()
        var failures = 0
        let client = FetchClient(via: via, timeout: timeout)
        for url in urls {
            do {
                let data = try await client.perform(makeRequest(url))
                // A closed pipe (nettap fetch URL | head -c 10) ends the output, not the process.
                try? output.write(contentsOf: data)
            } catch {
                failures += 1
                let nsError = error as NSError
                Output.error("nettap fetch: error: \(url.absoluteString): \(nsError.localizedDescription) (\(nsError.domain) \(nsError.code))")
            }
        }
        client.invalidate()
        await NetTap.shared.drain()
        try storage?.finish()
        if let exchangeJSONPath {
            let encoder = ExchangeJSON.encoder(pretty: true)
            let data = try encoder.encode(recent.exchanges)
            guard FileManager.default.createFile(atPath: exchangeJSONPath, contents: data + Data("\n".utf8)) else {
                throw CLIError.failure("cannot write '\(exchangeJSONPath)'")
            }
        }
        return failures == 0 ? 0 : 1
    }

    private func makeRequest(_ url: URL) -> URLRequest {
        var request = URLRequest(url: url)
        request.timeoutInterval = timeout  // the setter: only then does corelibs prefer it (docs/linux-foundation-notes.md)
        request.httpMethod = method ?? (body == nil ? "GET" : "POST")
        for (name, value) in headers {
            request.addValue(value, forHTTPHeaderField: name)
        }
        if let body {
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            }
            if bodyAsStream {
                // URLSession sends a stream body chunked; adding Content-Length would send both.
                request.httpBodyStream = InputStream(data: body)
            } else {
                request.httpBody = body
            }
        }
        return request
    }

    private func openOutput() throws -> FileHandle {
        guard let outputPath else { return FileHandle.standardOutput }
        guard FileManager.default.createFile(atPath: outputPath, contents: nil),
            let handle = FileHandle(forWritingAtPath: outputPath)
        else {
            throw CLIError.failure("cannot write '\(outputPath)'")
        }
        return handle
    }
}

/// Issues requests through one capture path.
final class FetchClient: Sendable {
    private let session: URLSession?
    private let tapSession: NetTapSession?

    init(via: FetchCommand.Via, timeout: TimeInterval) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        switch via {
        case .protocol:
            NetTap.enable(on: configuration)
            session = URLSession(configuration: configuration)
            tapSession = nil
        case .session:
            tapSession = NetTapSession(configuration: configuration)
            session = nil
        case .shared:
            // Registered before URLSession.shared is first touched, as an app does at launch.
            if !NetTap.registerGlobally() {
                Output.error("nettap fetch: warning: URLSession.shared was in use before NetTap registered; its traffic is not captured")
            }
            session = URLSession.shared
            tapSession = nil
        }
    }

    func perform(_ request: URLRequest) async throws -> Data {
        if let tapSession {
            return try await tapSession.data(for: request).0
        }
        guard let session else { return Data() }
        return try await session.data(for: request).0
    }

    func invalidate() {
        if session !== URLSession.shared { session?.finishTasksAndInvalidate() }
        tapSession?.finishTasksAndInvalidate()
    }
}
