/// How a command fails. Usage errors exit with status 2, failures with their own status.
enum CLIError: Error {
    /// The command line itself is wrong; the message names the option or argument.
    case usage(String, command: CommandSpec?)
    /// The command ran and failed; the message is one line for stderr.
    case failure(String, exitCode: Int32 = 1)
    case helpRequested
}
