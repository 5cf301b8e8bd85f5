/// The `--json` form of a page of `nettap list`.
struct ListPage: Encodable {
    var exchanges: [ListRow]
    var nextCursor: String?

    private enum CodingKeys: String, CodingKey { case exchanges, nextCursor }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(exchanges, forKey: .exchanges)
        try container.encode(nextCursor, forKey: .nextCursor)
    }
}
