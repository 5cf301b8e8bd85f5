import Foundation

/// `nettap-bench`: NetTap's benchmarks. Each prints figures measured side by side in one run.
let arguments = Array(CommandLine.arguments.dropFirst())
let usage = """
    usage: nettap-bench <benchmark> [options]
      capture [--requests N] [--concurrency N[,N...]] [--rounds N] [--control] [--attribution] [--builtin-server] [--json FILE]
      capture-cost [--iterations N] [--rounds N] [--only request|build|delivery] [--builtin-server] [--json FILE]
      export [--json FILE]
      redaction [--builtin-server] [--json FILE]
      rules [--builtin-server] [--json FILE]
      store [--json FILE] [--count N] [--query-rows N] [--rounds N] [--keep DIR] [--only sink|baseline|lent]
    """

func runBenchmark() async -> Int32 {
    guard let name = arguments.first else {
        FileHandle.standardError.write(Data((usage + "\n").utf8))
        return 2
    }
    let rest = Array(arguments.dropFirst())
    do {
        switch name {
        case "capture": return try await CaptureBenchmark.run(arguments: rest)
        case "capture-cost": return try await CapturePipelineCommand.run(arguments: rest)
        case "capture-worker": return await CaptureBenchmark.worker(arguments: rest)
        case "store": return StoreBenchmark.run(rest)
        case "store-writer": return StoreCrashWriter.run(rest)
        case "rules": return try await RulesBenchmarkCommand.run(arguments: rest)
        case "redaction": return try await RedactionBenchmark.run(arguments: rest)
        case "export":
            try ExportBenchmark.run(arguments: rest)
            return 0
        default:
            FileHandle.standardError.write(Data("nettap-bench: unknown benchmark '\(name)'\n\(usage)\n".utf8))
            return 2
        }
    } catch let error as BenchUsageError {
        FileHandle.standardError.write(Data("nettap-bench \(name): error: \(error)\n\(usage)\n".utf8))
        return 2
    } catch {
        FileHandle.standardError.write(Data("nettap-bench \(name): error: \(error)\n".utf8))
        return 1
    }
}

exit(await runBenchmark())
