/// `nettap demo`: placeholder until the sample API lands.
struct DemoCommand: Command {
    static let spec = CommandSpec(name: "demo", abstract: "Run sample traffic through both capture paths and show what was captured.")
    init(_ arguments: ParsedArguments) throws {}
    func run() async throws -> Int32 { 0 }
}
