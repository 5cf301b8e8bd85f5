import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "store":
    exit(StoreBenchmark.run(Array(arguments.dropFirst())))
case "store-writer":
    exit(StoreCrashWriter.run(Array(arguments.dropFirst())))
default:
    print("nettap-bench")
}
