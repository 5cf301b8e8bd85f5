import CSQLite
import Foundation
import NetTapCore

/// Writes exchange records inside one transaction on the store's queue: exchange rows, their
/// label rows, and references to deduplicated bodies.
///
/// Bodies are deduplicated through the store's `RecentBodies`: bytes it remembers gain a
/// reference on the row it names, checked by id and hash in one update; other bytes are
/// inserted as a new row. Reference counts are coalesced: later references to the same bytes
/// in the same transaction, and references dropped by retention, are only counted, and
/// `finish()` writes one update per body. A popular body (an empty list, `{"ok":true}`) then
/// costs one statement per batch instead of one per exchange.
///
/// ```swift
/// try db.inTransaction {
///     let writer = try RecordWriter(db: db, recentBodies: store.recentBodies)
///     for record in records { _ = try writer.insert(record, skipDuplicate: true) }
///     try writer.finish()  // before the transaction commits
/// }
/// ```
package final class RecordWriter {
    let db: Database
    private let insertExchange: Statement
    private let insertExchangeSkippingDuplicate: Statement
    private let insertLabel: Statement
    private let insertBody: Statement
    private let referRecentBody: Statement
    private let recentBodies: Protected<RecentBodies>
    /// Bodies this transaction has referred to, by hash.
    private var bodyIDs: [BodyHash: Int64] = [:]
    /// References taken (positive) or dropped (negative) per body that `finish()` still has to write.
    private var unwrittenReferences: [Int64: Int] = [:]

    package static let insertSQL = """
        INSERT INTO exchanges (id, session_id, started_at, started_ref, duration, method, url, host, path, \
        url_template, status, error_category, error_domain, error_code, error_message, request_size, \
        response_size, request_body_id, response_body_id, request_headers, response_headers, request_body, \
        response_body, response_http_version, response_url, labels, capture_path, task_kind, redirects, metrics, \
        modifications) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    /// `insertSQL` that leaves an ID already stored alone (the sink's batches).
    static let insertSkippingDuplicateSQL = insertSQL + " ON CONFLICT (id) DO NOTHING"
    package static let insertLabelSQL = "INSERT INTO exchange_labels (key, value, started_at, exchange_rowid) VALUES (?, ?, ?, ?)"
    package static let insertBodySQL = "INSERT INTO bodies (hash, size, encoding, data, refs) VALUES (?, ?, ?, ?, 1)"
    /// Takes a reference to a remembered body, if that row still holds those bytes.
    static let referRecentBodySQL = "UPDATE bodies SET refs = refs + 1 WHERE id = ? AND hash = ?"
    static let addReferencesSQL = "UPDATE bodies SET refs = refs + ? WHERE id = ? RETURNING refs"
    /// The most bodies `warmUp()` reads from the file.
    static let warmUpLimit = 4_096

    /// Prepares (or takes from the connection's cache) the statements a batch uses. The first
    /// writer of a store fills `recentBodies` with the file's newest bodies.
    init(db: Database, recentBodies: Protected<RecentBodies>) throws {
        self.db = db
        self.recentBodies = recentBodies
        insertExchange = try db.cachedStatement(Self.insertSQL)
        insertExchangeSkippingDuplicate = try db.cachedStatement(Self.insertSkippingDuplicateSQL)
        insertLabel = try db.cachedStatement(Self.insertLabelSQL)
        insertBody = try db.cachedStatement(Self.insertBodySQL)
        referRecentBody = try db.cachedStatement(Self.referRecentBodySQL)
        if !recentBodies.withLock({ $0.isWarm }) { try warmUp() }
    }

    /// Reads the ids and hashes of the newest bodies, oldest of them first, so that a relaunched
    /// app deduplicates against what it stored before. At most `warmUpLimit`: reading the newest
    /// 65,536 body rows of a store took 1.05 s with a cold page cache here (67 ms warm), a delay
    /// for the first batch after every launch, while the bodies an app repeats are few and recent.
    private func warmUp() throws {
        let count = min(recentBodies.withLock { $0.capacity }, Self.warmUpLimit)
        var newest: [(key: UInt64, id: Int64)] = []
        if count > 0 {
            try db.prepare("SELECT id, hash FROM bodies ORDER BY id DESC LIMIT ?").forEachRow([.integer(Int64(count))]) { row in
                guard let hash = row.data(at: 1) else { return }
                newest.append((RecentBodies.key([UInt8](hash)), row.int64(at: 0)))
            }
        }
        recentBodies.withLock { recent in
            guard !recent.isWarm else { return }
            for entry in newest.reversed() { recent.remember(entry.key, id: entry.id) }
            recent.markWarm()
        }
    }

    /// Inserts one exchange with its bodies and labels. With `skipDuplicate`, an ID already
    /// stored is left alone and false returned; without, it throws SQLITE_CONSTRAINT_UNIQUE.
    func insert(_ record: ExchangeRecord, skipDuplicate: Bool) throws -> Bool {
        let requestBodyID = try record.requestBody.map(retainBody)
        let responseBodyID = try record.responseBody.map(retainBody)
        let statement = skipDuplicate ? insertExchangeSkippingDuplicate : insertExchange
        statement.reset()
        defer { statement.reset() }
        try Self.bind(record, requestBodyID: requestBodyID, responseBodyID: responseBodyID, to: statement)
        // The bound text lives in record.columns; the deferred reset clears the bindings first.
        try withExtendedLifetime(record.columns) { _ = try statement.step() }
        guard db.changes == 1 else {
            // Already stored: give back the body references taken above.
            for id in [requestBodyID, responseBodyID].compactMap({ $0 }) { releaseBody(id) }
            return false
        }
        let rowid = db.lastInsertRowID
        if !record.labelPairs.isEmpty {
            defer { insertLabel.reset() }
            for pair in record.labelPairs {
                insertLabel.reset()
                try insertLabel.bind(pair.key, at: 1)
                try insertLabel.bind(pair.value, at: 2)
                try insertLabel.bind(record.startedAt, at: 3)
                try insertLabel.bind(rowid, at: 4)
                try insertLabel.step()
            }
        }
        return true
    }

    /// Binds the 31 columns of `insertSQL`; shared with the benchmark's baseline. The text
    /// columns are bound in place from `record.columns`: keep `record` alive until `statement`
    /// is reset.
    package static func bind(_ record: ExchangeRecord, requestBodyID: Int64?, responseBodyID: Int64?, to statement: Statement)
        throws
    {
        let columns = record.columns
        func text(_ column: ColumnText?, at index: Int32) throws {
            try statement.bind(unsafeText: column.map(columns.buffer), at: index)
        }
        try text(record.id, at: 1)
        try text(record.sessionID, at: 2)
        try statement.bind(record.startedAt, at: 3)
        try statement.bind(record.startedRef, at: 4)
        try statement.bind(record.duration, at: 5)
        try text(record.method, at: 6)
        try text(record.url, at: 7)
        try text(record.host, at: 8)
        try text(record.path, at: 9)
        try text(record.urlTemplate, at: 10)
        try statement.bind(record.status, at: 11)
        try text(record.errorCategory, at: 12)
        try text(record.errorDomain, at: 13)
        try statement.bind(record.errorCode, at: 14)
        try text(record.errorMessage, at: 15)
        try statement.bind(record.requestSize, at: 16)
        try statement.bind(record.responseSize, at: 17)
        try statement.bind(requestBodyID, at: 18)
        try statement.bind(responseBodyID, at: 19)
        try text(record.requestHeaders, at: 20)
        try text(record.responseHeaders, at: 21)
        try text(record.requestBodyInfo, at: 22)
        try text(record.responseBodyInfo, at: 23)
        try text(record.httpVersion, at: 24)
        try text(record.responseURL, at: 25)
        try text(record.labels, at: 26)
        try text(record.capturePath, at: 27)
        try text(record.taskKind, at: 28)
        try text(record.redirects, at: 29)
        try text(record.metrics, at: 30)
        try text(record.modifications, at: 31)
    }

    /// The id of the stored body with these bytes, taking one more reference (inserting it if new).
    func retainBody(_ body: BodyRecord) throws -> Int64 {
        let hash = BodyHash(body.hash)
        if let id = bodyIDs[hash] {
            unwrittenReferences[id, default: 0] += 1
            return id
        }
        if let id = recentBodies.withLock({ $0.id(for: hash.key) }) {
            referRecentBody.reset()
            defer { referRecentBody.reset() }
            try referRecentBody.bind(id, at: 1)
            try referRecentBody.bind(bytes: body.hash, at: 2)
            try referRecentBody.step()
            if db.changes == 1 {
                bodyIDs[hash] = id
                return id
            }
            // Deleted since, or the id now holds other bytes: store these again below.
        }
        insertBody.reset()
        defer { insertBody.reset() }
        try insertBody.bind(bytes: body.hash, at: 1)
        try insertBody.bind(body.size, at: 2)
        try insertBody.bind(body.encoding.rawValue, at: 3)
        try insertBody.bind(body.stored, at: 4)
        try insertBody.step()
        let id = db.lastInsertRowID
        recentBodies.withLock { $0.remember(hash.key, id: id) }
        bodyIDs[hash] = id
        return id
    }

    /// Drops one reference to a body; `finish()` deletes bodies left with none.
    func releaseBody(_ id: Int64) {
        unwrittenReferences[id, default: 0] -= 1
    }

    /// Writes the references counted since the last call, one update per body, and deletes the
    /// bodies no exchange refers to any more. Call it before the transaction commits.
    /// Returns the number of bodies deleted.
    @discardableResult
    func finish() throws -> Int {
        defer {
            unwrittenReferences.removeAll(keepingCapacity: true)
            bodyIDs.removeAll(keepingCapacity: true)
        }
        var deleted = 0
        let update = try db.cachedStatement(Self.addReferencesSQL)
        let delete = try db.cachedStatement("DELETE FROM bodies WHERE id = ?")
        for (id, delta) in unwrittenReferences where delta != 0 {
            guard let refs = try update.scalar([.integer(Int64(delta)), .integer(id)])?.int64, refs <= 0 else { continue }
            try delete.execute([.integer(id)])
            deleted += 1
        }
        return deleted
    }
}

/// A SHA-256 digest as a dictionary key that hashes only its first eight bytes (`key`, also
/// the body's key in `RecentBodies`): they are as random as the rest, and feeding all 32 to
/// `Hasher` one byte at a time showed in profiles. Equality compares the whole digest.
private struct BodyHash: Hashable {
    let digest: [UInt8]
    let key: UInt64

    init(_ digest: [UInt8]) {
        self.digest = digest
        key = RecentBodies.key(digest)
    }

    static func == (lhs: BodyHash, rhs: BodyHash) -> Bool { lhs.digest == rhs.digest }

    func hash(into hasher: inout Hasher) {
        hasher.combine(key)
    }
}
