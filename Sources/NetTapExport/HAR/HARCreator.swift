/// The application named in `log.creator` of an exported HAR file.
public struct HARCreator: Sendable, Hashable {
    public var name: String
    public var version: String
    public var comment: String?

    public init(name: String, version: String, comment: String? = nil) {
        self.name = name
        self.version = version
        self.comment = comment
    }

    /// NetTap itself.
    public static let netTap = HARCreator(name: "NetTap", version: "0.1.0")
}
