import NetTapStore

/// `nettap prune --json`: what was removed and what remains.
struct PruneReport: Encodable {
    let result: PruneResult
    let remaining: Int

    private enum CodingKeys: String, CodingKey {
        case removedExchanges, removedBodies, remainingExchanges, usedBytesBefore, usedBytesAfter
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(result.removedExchanges, forKey: .removedExchanges)
        try container.encode(result.removedBodies, forKey: .removedBodies)
        try container.encode(remaining, forKey: .remainingExchanges)
        try container.encode(result.usedBytesBefore, forKey: .usedBytesBefore)
        try container.encode(result.usedBytesAfter, forKey: .usedBytesAfter)
    }
}
