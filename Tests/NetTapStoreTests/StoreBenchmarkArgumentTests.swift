import Foundation
import Testing

/// `nettap-bench store` refuses bad arguments before it measures anything, naming the argument and
/// what is wrong with it, with exit status 2.
@Suite struct StoreBenchmarkArgumentTests {
    @Test(arguments: [
        (["--count", "0"], "--count: '0' is not a positive whole number"),
        (["--rounds", "three"], "--rounds: 'three' is not a positive whole number"),
        (["--query-rows", "-1"], "--query-rows: '-1' is not a whole number, 0 or more"),
        (["--only", "reader"], "--only: 'reader' is not one of sink, baseline, lent, writer"),
        (["--count", "5", "--json"], "--json needs a value"),
        (["--fast"], "unknown argument '--fast'"),
    ])
    func badArgumentsAreNamed(arguments: [String], message: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try StoreCrashTests.writerBinary())
        process.arguments = ["store"] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 2)
        #expect(output.hasPrefix("nettap-bench store: \(message)\n"), "stderr was: \(output)")
        #expect(output.contains("usage: nettap-bench store"))
    }
}
