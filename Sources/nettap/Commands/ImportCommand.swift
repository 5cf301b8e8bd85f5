import Foundation
import NetTapCore
import NetTapExport
import NetTapStore

/// `nettap import FILE`: a HAR file (from NetTap, a browser or a proxy) or NDJSON into the store,
/// all or nothing.
struct ImportCommand: Command {
    static let spec = CommandSpec(
        name: "import",
        abstract: "Import a HAR or NDJSON file into the store, all or nothing.",
        discussion: """
            HAR files written by NetTap come back exactly (IDs, sessions, labels, timing); those of
            Chrome, Firefox, Charles, Proxyman and mitmproxy are read as docs/export-formats.md
            describes. Files ending in .ndjson or .jsonl are read as NDJSON, anything else as HAR
            (or as --format says). The whole file is checked before anything is stored and stored
            in one transaction: on any problem the command names the entry and field (or line and
            column), exits with status 1 and leaves the store as it was.

            Examples:
              nettap import session.har
              nettap import --store ci.sqlite --session run-42 exchanges.ndjson
            """,
        options: [
            .init(names: ["--format"], valueName: "FORMAT", help: "har or ndjson (default: by the file's extension)."),
            .init(names: ["--session"], valueName: "ID", help: "Session of imported HAR entries that name none (default: har-import)."),
            StoreOption.option,
        ],
        positionals: [.init(name: "FILE", help: "The HAR or NDJSON file to import.")]
    )

    enum Format: String { case har, ndjson }

    let storePath: String
    let file: String
    let format: Format
    let sessionID: String?

    init(_ arguments: ParsedArguments) throws {
        storePath = StoreOption.path(arguments)
        file = arguments.positionals[0]
        if let name = arguments.value("--format") {
            guard let format = Format(rawValue: name.lowercased()) else {
                throw CLIError.usage("option '--format' expects har or ndjson, not '\(name)'", command: Self.spec)
            }
            self.format = format
        } else {
            let suffix = URL(fileURLWithPath: file).pathExtension.lowercased()
            format = suffix == "ndjson" || suffix == "jsonl" ? .ndjson : .har
        }
        sessionID = arguments.value("--session")
        if sessionID?.isEmpty == true {
            throw CLIError.usage("option '--session' needs a non-empty value", command: Self.spec)
        }
        if sessionID != nil, format == .ndjson {
            throw CLIError.usage("option '--session' applies to HAR files (NDJSON lines carry their own)", command: Self.spec)
        }
    }

    func run() async throws -> Int32 {
        let progress = ProgressLine()
        defer { progress.clear() }
        // Read and check the whole file before the store is opened: a bad file changes nothing.
        let exchanges = try read(progress)
        let store = try StoreOption.open(path: storePath, create: true)
        progress.update("storing \(exchanges.count) exchanges", always: true)
        let imported: Int
        do {
            imported = try store.insert(exchanges)
        } catch let error as ExchangeStoreError {
            if case .insertFailed(let index, let id, let reason) = error {
                let place = format == .har ? "entry \(index)" : "exchange #\(index + 1)"
                throw CLIError.failure("\(file): \(place) (id \(id.uuidString)): \(reason); nothing was imported")
            }
            throw CLIError.failure("\(file): \(error); nothing was imported")
        } catch {
            throw CLIError.failure("\(file): \(error); nothing was imported")
        }
        progress.clear()
        Output.out("Imported \(imported) exchange\(imported == 1 ? "" : "s") from \(file) into \(storePath).")
        return 0
    }

    private func read(_ progress: ProgressLine) throws -> [Exchange] {
        let url = URL(fileURLWithPath: file)
        guard FileManager.default.isReadableFile(atPath: file) else {
            throw CLIError.failure("cannot read '\(file)': no such readable file")
        }
        var exchanges: [Exchange] = []
        do {
            switch format {
            case .har:
                let reader = HARReader(options: sessionID.map { .init(sessionID: $0) } ?? .init())
                try reader.read(contentsOf: url) { exchange in
                    exchanges.append(exchange)
                    progress.update("reading: \(exchanges.count) exchanges")
                }
            case .ndjson:
                let data = try Data(contentsOf: url, options: .alwaysMapped)
                try NDJSONReader().read(data, file: file) { exchange in
                    exchanges.append(exchange)
                    progress.update("reading: \(exchanges.count) exchanges")
                }
            }
        } catch let error as HARImportError {
            throw CLIError.failure("\(error.description); nothing was imported")
        } catch let error as NDJSONImportError {
            throw CLIError.failure("\(error.description); nothing was imported")
        } catch {
            throw CLIError.failure("cannot read '\(file)': \(error.localizedDescription)")
        }
        return exchanges
    }
}
