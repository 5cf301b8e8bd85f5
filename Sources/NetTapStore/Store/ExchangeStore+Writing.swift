import CSQLite
import Foundation
import NetTapCore

extension ExchangeStore {
    /// Stores `exchanges` in one transaction: all of them, or (when one fails) none.
    ///
    /// Used by imports. An exchange whose ID is already stored is an error, naming its index.
    /// Returns the number stored.
    @discardableResult
    public func insert(_ exchanges: [Exchange]) throws -> Int {
        var records: [ExchangeRecord] = []
        records.reserveCapacity(exchanges.count)
        for (index, exchange) in exchanges.enumerated() {
            do {
                records.append(try ExchangeRecord(exchange, compressionThreshold: configuration.compressionThreshold))
            } catch let error as ExchangeStoreError {
                if case .invalidExchange(_, let reason) = error {
                    throw ExchangeStoreError.insertFailed(index: index, id: exchange.id, reason: reason)
                }
                throw error
            }
        }
        try queue.sync { db in
            try db.inTransaction(.immediate) {
                let writer = RecordWriter(db: db)
                for (index, record) in records.enumerated() {
                    do {
                        _ = try writer.insert(record, skipDuplicate: false)
                    } catch let error as DatabaseError {
                        let id = exchanges[index].id
                        if error.extendedResultCode == DatabaseError.constraintUnique {
                            throw ExchangeStoreError.insertFailed(
                                index: index, id: id, reason: "an exchange with this id is already stored")
                        }
                        throw ExchangeStoreError.insertFailed(index: index, id: id, reason: error.description)
                    }
                }
            }
            adjustTrackedCount(by: records.count)
        }
        return records.count
    }

    /// Writes a batch from the sink in one transaction, skipping IDs already stored, and adds
    /// `droppedEvents` to the persistent drop counter. Returns how many exchanges were new.
    func writeBatch(_ records: [ExchangeRecord], droppedEvents: Int) throws -> Int {
        try queue.sync { db in
            let inserted = try db.inTransaction(.immediate) { () -> Int in
                let writer = RecordWriter(db: db)
                var inserted = 0
                for record in records where try writer.insert(record, skipDuplicate: true) {
                    inserted += 1
                }
                if droppedEvents > 0 {
                    try db.execute(
                        "UPDATE meta SET value = value + ? WHERE key = 'dropped_events'", [.integer(Int64(droppedEvents))])
                }
                return inserted
            }
            adjustTrackedCount(by: inserted)
            return inserted
        }
    }
}

/// Inserts records with cached statements; used inside a transaction on the store's queue.
package struct RecordWriter {
    let db: Database

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
    /// One statement, one index seek: a new body is inserted, a known one gains a reference.
    static let retainBodySQL = insertBodySQL + " ON CONFLICT (hash) DO UPDATE SET refs = refs + 1 RETURNING id"

    /// Inserts one exchange with its bodies and labels. With `skipDuplicate`, an ID already
    /// stored is left alone and false returned; without, it throws SQLITE_CONSTRAINT_UNIQUE.
    func insert(_ record: ExchangeRecord, skipDuplicate: Bool) throws -> Bool {
        let requestBodyID = try record.requestBody.map(retainBody)
        let responseBodyID = try record.responseBody.map(retainBody)
        let sql = skipDuplicate ? Self.insertSkippingDuplicateSQL : Self.insertSQL
        let statement = try db.cachedStatement(sql)
        statement.reset()
        try Self.bind(record, requestBodyID: requestBodyID, responseBodyID: responseBodyID, to: statement)
        try statement.step()
        statement.reset()
        guard db.changes == 1 else {
            // Already stored: undo the body references taken above.
            for id in [requestBodyID, responseBodyID].compactMap({ $0 }) { try releaseBody(id) }
            return false
        }
        let rowid = db.lastInsertRowID
        if !record.labelPairs.isEmpty {
            let insertLabel = try db.cachedStatement(Self.insertLabelSQL)
            for pair in record.labelPairs {
                insertLabel.reset()
                try insertLabel.bind(pair.key, at: 1)
                try insertLabel.bind(pair.value, at: 2)
                try insertLabel.bind(record.startedAt, at: 3)
                try insertLabel.bind(rowid, at: 4)
                try insertLabel.step()
            }
            insertLabel.reset()
        }
        return true
    }

    /// Binds the 31 columns of `insertSQL`; shared with the benchmark's baseline.
    package static func bind(_ record: ExchangeRecord, requestBodyID: Int64?, responseBodyID: Int64?, to statement: Statement)
        throws
    {
        try statement.bind(record.id, at: 1)
        try statement.bind(record.sessionID, at: 2)
        try statement.bind(record.startedAt, at: 3)
        try statement.bind(record.startedRef, at: 4)
        try statement.bind(record.duration, at: 5)
        try statement.bind(record.method, at: 6)
        try statement.bind(record.url, at: 7)
        try statement.bind(record.host, at: 8)
        try statement.bind(record.path, at: 9)
        try statement.bind(record.urlTemplate, at: 10)
        try statement.bind(record.status, at: 11)
        try statement.bind(record.errorCategory, at: 12)
        try statement.bind(record.errorDomain, at: 13)
        try statement.bind(record.errorCode, at: 14)
        try statement.bind(record.errorMessage, at: 15)
        try statement.bind(record.requestSize, at: 16)
        try statement.bind(record.responseSize, at: 17)
        try statement.bind(requestBodyID, at: 18)
        try statement.bind(responseBodyID, at: 19)
        try statement.bind(record.requestHeaders, at: 20)
        try statement.bind(record.responseHeaders, at: 21)
        try statement.bind(record.requestBodyInfo, at: 22)
        try statement.bind(record.responseBodyInfo, at: 23)
        try statement.bind(record.httpVersion, at: 24)
        try statement.bind(record.responseURL, at: 25)
        try statement.bind(record.labels, at: 26)
        try statement.bind(record.capturePath, at: 27)
        try statement.bind(record.taskKind, at: 28)
        try statement.bind(record.redirects, at: 29)
        try statement.bind(record.metrics, at: 30)
        try statement.bind(record.modifications, at: 31)
    }

    /// The id of the stored body with these bytes, taking one more reference (inserting it if new).
    func retainBody(_ body: BodyRecord) throws -> Int64 {
        let retain = try db.cachedStatement(Self.retainBodySQL)
        retain.reset()
        defer { retain.reset() }
        try retain.bind(bytes: body.hash, at: 1)
        try retain.bind(body.size, at: 2)
        try retain.bind(body.encoding.rawValue, at: 3)
        try retain.bind(body.stored, at: 4)
        guard try retain.step() else {
            throw DatabaseError(extendedResultCode: SQLITE_ERROR, message: "body upsert returned no id", sql: Self.retainBodySQL)
        }
        return retain.int64(at: 0)
    }

    /// Drops one reference to a body, deleting it when none is left. Returns true when deleted.
    @discardableResult
    func releaseBody(_ id: Int64) throws -> Bool {
        let release = try db.cachedStatement("UPDATE bodies SET refs = refs - 1 WHERE id = ? RETURNING refs")
        guard let refs = try release.scalar([.integer(id)])?.int64 else { return false }
        guard refs <= 0 else { return false }
        try db.execute("DELETE FROM bodies WHERE id = ?", [.integer(id)])
        return true
    }
}
