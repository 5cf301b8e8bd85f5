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
                let writer = try RecordWriter(db: db, recentBodies: recentBodies)
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
                try writer.finish()
            }
            adjustTrackedCount(by: records.count)
        }
        return records.count
    }

    /// Writes chunks of records from the sink in one transaction, skipping IDs already stored:
    /// the chunks `nextChunk` gives until it returns nil (it decides how large the transaction
    /// grows), and adds the chunks' dropped events to the persistent drop counter. Returns how
    /// many exchanges were new. `nextChunk` may wait for the sink's encoder; on a throw, the
    /// chunks it gave are lost.
    package func writeBatch(nextChunk: () -> (records: [ExchangeRecord], droppedEvents: Int)?) throws -> Int {
        try queue.sync { db in
            let inserted = try db.inTransaction(.immediate) { () -> Int in
                let writer = try RecordWriter(db: db, recentBodies: recentBodies)
                var inserted = 0
                var droppedEvents = 0
                while let chunk = nextChunk() {
                    droppedEvents += chunk.droppedEvents
                    // By index: `for record in` would copy each record (a retain per column) first.
                    let records = chunk.records
                    for index in records.indices where try writer.insert(records[index], skipDuplicate: true) {
                        inserted += 1
                    }
                }
                try writer.finish()
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
