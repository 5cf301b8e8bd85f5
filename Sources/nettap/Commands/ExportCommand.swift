import Foundation
import NetTapCore
import NetTapExport
import NetTapStore

/// `nettap export`: stored exchanges as HAR 1.2, cURL commands or NDJSON, streamed oldest first.
struct ExportCommand: Command {
    static let spec = CommandSpec(
        name: "export",
        abstract: "Export stored exchanges as HAR, cURL commands or NDJSON.",
        discussion: """
            Exchanges are written oldest first, one at a time, so any number of them exports in
            constant memory. With -o the file appears only when the export is complete. The formats
            are described in docs/export-formats.md.

            Examples:
              nettap export --format har --since 1h -o last-hour.har
              nettap export --format curl --failures
              nettap export --format ndjson --label screen=checkout | jq .request.url
            """,
        options: [
            .init(names: ["--format"], valueName: "FORMAT", help: "har (default), curl or ndjson."),
            .init(names: ["-o", "--output"], valueName: "FILE", help: "Write to FILE instead of stdout."),
            .init(
                names: ["--body-dir"], valueName: "DIR",
                help: "curl: write binary request bodies to files in DIR (default: piped in with printf)."),
        ] + FilterOptions.options + [StoreOption.option]
    )

    let storePath: String
    let filter: ExchangeFilter
    let format: ExportFormat
    let outputPath: String?
    let bodyDirectory: URL?

    init(_ arguments: ParsedArguments) throws {
        storePath = StoreOption.path(arguments)
        filter = try FilterOptions.filter(from: arguments)
        let formatName = arguments.value("--format") ?? "har"
        guard let format = ExportFormat(rawValue: formatName.lowercased()) else {
            throw CLIError.usage("option '--format' expects har, curl or ndjson, not '\(formatName)'", command: Self.spec)
        }
        self.format = format
        outputPath = arguments.value("-o")
        if let directory = arguments.value("--body-dir") {
            guard format == .curl else {
                throw CLIError.usage("option '--body-dir' applies to --format curl only", command: Self.spec)
            }
            bodyDirectory = URL(fileURLWithPath: directory, isDirectory: true)
        } else {
            bodyDirectory = nil
        }
    }

    func run() async throws -> Int32 {
        let store = try StoreOption.open(path: storePath, create: false)
        if let bodyDirectory {
            do {
                try FileManager.default.createDirectory(at: bodyDirectory, withIntermediateDirectories: true)
            } catch {
                throw CLIError.failure("cannot create the body directory '\(bodyDirectory.path)': \(error.localizedDescription)")
            }
        }
        let file = try outputPath.map(OutputFile.init(path:))
        let sink: any ByteSink = file?.handle ?? FileHandle.standardOutput
        let writer = format.writer(to: sink, curlBodyDirectory: bodyDirectory)
        let progress = ProgressLine()
        let total = Output.stderrIsTerminal ? try store.count(matching: filter) : 0
        var written = 0
        do {
            try store.forEach(matching: filter, order: .oldestFirst) { exchange in
                try writer.write(exchange)
                written += 1
                progress.update("exporting: \(written) of \(total)")
            }
            try writer.finish()
            progress.clear()
            try file?.commit()
        } catch {
            progress.clear()
            file?.discard()
            if let failure = error as? CLIError { throw failure }
            // The reader of stdout stopped reading (`nettap export | head`): that ends the export, quietly.
            if outputPath == nil, Output.isBrokenPipe(error) { return 0 }
            let target = outputPath.map { "'\($0)'" } ?? "standard output"
            throw CLIError.failure("export to \(target) failed after \(written) exchanges: \(error)")
        }
        if let outputPath {
            Output.out("Exported \(written) exchange\(written == 1 ? "" : "s") to \(outputPath).")
        }
        return 0
    }
}
