import Foundation

/// How recorded requests are matched to live ones, and what a miss does.
///
/// The matching key is always method, scheme, host, port, path and the query items as a sorted
/// multiset (order does not matter, repeats do). These options loosen or tighten it.
public struct ReplayOptions: Sendable, Hashable, CustomStringConvertible {
    /// How request bodies must agree.
    public enum BodyMatching: String, Sendable, Hashable, CaseIterable {
        /// Byte for byte.
        case exact
        /// As parsed JSON values (key order and spacing do not matter); byte for byte if either is not JSON.
        case json
        /// As `application/x-www-form-urlencoded` multisets of name/value pairs.
        case form
        /// Bodies are not compared.
        case none
    }

    /// What happens when no recorded entry matches.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// The request fails with a message showing the closest entry and how it differs.
        case strict
        /// The request goes to the network.
        case passthrough
        /// The request goes to the network and the exchange is added to the recording.
        case recordMissing
    }

    /// Query item names left out of the key (`_`, `timestamp`, cache busters).
    public var ignoreQueryItems: Set<String>
    /// Header names (lowercased) never compared, even under `matchHeaders: ["*"]`.
    public var ignoreHeaders: Set<String>
    /// Header names (lowercased) whose values must be equal; `"*"` means every header either side has.
    public var matchHeaders: [String]
    public var matchBody: BodyMatching
    /// When every matching entry has been used, keep answering with the last one.
    public var reuseLast: Bool
    public var mode: Mode

    public init(
        ignoreQueryItems: Set<String> = [], ignoreHeaders: Set<String> = [], matchHeaders: [String] = [],
        matchBody: BodyMatching = .exact, reuseLast: Bool = false, mode: Mode = .strict
    ) {
        self.ignoreQueryItems = ignoreQueryItems
        self.ignoreHeaders = Set(ignoreHeaders.map { $0.lowercased() })
        self.matchHeaders = matchHeaders.map { $0.lowercased() }
        self.matchBody = matchBody
        self.reuseLast = reuseLast
        self.mode = mode
    }

    public var description: String {
        var parts = ["mode \(mode.rawValue)", "body \(matchBody.rawValue)"]
        if !ignoreQueryItems.isEmpty { parts.append("ignoring query " + ignoreQueryItems.sorted().joined(separator: ",")) }
        if !matchHeaders.isEmpty { parts.append("matching headers " + matchHeaders.joined(separator: ",")) }
        if !ignoreHeaders.isEmpty { parts.append("ignoring headers " + ignoreHeaders.sorted().joined(separator: ",")) }
        if reuseLast { parts.append("reusing the last entry") }
        return parts.joined(separator: ", ")
    }
}

/// A recording to answer matching requests from: a HAR file and how to match it.
public struct ReplaySource: Sendable, Hashable, CustomStringConvertible {
    /// The HAR file, resolved against the rules file's directory.
    public var harFile: URL
    public var options: ReplayOptions

    public init(harFile: URL, options: ReplayOptions = ReplayOptions()) {
        self.harFile = harFile
        self.options = options
    }

    public var description: String { "replay from \(harFile.path) (\(options))" }
}
