import Foundation
import NetTapStore

/// The `--store PATH` option that every command shares, and opening the store it names.
enum StoreOption {
    static let option = CommandSpec.Option(
        names: ["--store"], valueName: "PATH",
        help: "The store file (default: $\(StoreLocation.environmentVariable), else ./\(StoreLocation.defaultFileName)).")

    /// The store path: `--store`, else `$NETTAP_STORE`, else `./nettap.sqlite`.
    static func path(_ arguments: ParsedArguments) -> String {
        StoreLocation.resolve(option: arguments.value("--store"))
    }

    /// Opens the store at `path`. Commands that only read pass `create: false`, so that a wrong
    /// path is reported rather than answered from a new, empty file.
    static func open(path: String, create: Bool) throws -> ExchangeStore {
        do {
            return try ExchangeStore(path: path, configuration: .init(createIfMissing: create))
        } catch let error as ExchangeStoreError {
            throw CLIError.failure(error.description)
        } catch {
            throw CLIError.failure("cannot open the store \(path): \(error)")
        }
    }
}
