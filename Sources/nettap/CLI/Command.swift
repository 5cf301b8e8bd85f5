/// A `nettap` subcommand: a small struct built from parsed arguments that runs and returns an exit status.
protocol Command: Sendable {
    static var spec: CommandSpec { get }
    init(_ arguments: ParsedArguments) throws
    func run() async throws -> Int32
}
