import Foundation

/// Settings for loading a rules file; the defaults suit an app, tests override them.
public struct RuleLoadOptions: Sendable {
    /// Whether proxy actions are accepted (`RulesPlatform.supportsProxyRules` unless a test says otherwise).
    public var platformSupportsProxyRules: Bool
    /// Reads files that mock actions name (at load time).
    public var readFile: @Sendable (URL) throws -> Data

    public init(
        platformSupportsProxyRules: Bool = RulesPlatform.supportsProxyRules,
        readFile: @escaping @Sendable (URL) throws -> Data = { try Data(contentsOf: $0) }
    ) {
        self.platformSupportsProxyRules = platformSupportsProxyRules
        self.readFile = readFile
    }
}
