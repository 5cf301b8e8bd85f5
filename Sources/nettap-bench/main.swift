import Foundation

// Benchmarks, one subcommand each: `nettap-bench export [--json FILE]`.
switch CommandLine.arguments.dropFirst().first {
case "export":
    do {
        try ExportBenchmark.run(arguments: Array(CommandLine.arguments.dropFirst(2)))
    } catch {
        FileHandle.standardError.write(Data("nettap-bench export: \(error)\n".utf8))
        exit(1)
    }
default:
    print("usage: nettap-bench export [--json FILE]")
}
