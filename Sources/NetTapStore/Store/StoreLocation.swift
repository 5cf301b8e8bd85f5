import Foundation

/// Where the command-line tools find the store: `--store PATH`, else `$NETTAP_STORE`, else
/// `./nettap.sqlite`.
///
/// ```swift
/// let path = StoreLocation.resolve(option: parsedStoreOption)  // nil when --store was not given
/// let store = try ExchangeStore(path: path, configuration: .init(createIfMissing: false))
/// ```
public enum StoreLocation {
    /// The environment variable that names the store when `--store` is not given.
    public static let environmentVariable = "NETTAP_STORE"
    /// The file used when neither is given, in the current directory.
    public static let defaultFileName = "nettap.sqlite"

    /// The store path: the option when given and not empty, else the environment variable when set
    /// and not empty, else `./nettap.sqlite`.
    public static func resolve(
        option: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        if let option, !option.isEmpty { return option }
        if let fromEnvironment = environment[environmentVariable], !fromEnvironment.isEmpty { return fromEnvironment }
        return "./" + defaultFileName
    }
}
