import Foundation
import NetTapCore
import NetTapStore

/// The store benchmark's baseline: the exact rows the store would write for a list of exchanges
/// (column values, compressed body bytes, label rows), prepared beforehand, then inserted with
/// plain prepared statements in batched transactions. Nothing is encoded, hashed or looked up
/// while the clock runs.
struct BaselineRows {
    private struct Row {
        var record: ExchangeRecord
        /// For each of request and response body: a new body to insert, or the id of an earlier one.
        var requestBody: BodyAction?
        var responseBody: BodyAction?
    }

    private enum BodyAction {
        case insert(hash: [UInt8], size: Int64, encoding: String, data: Data)
        case reuse(id: Int64)
    }

    private let rows: [Row]
    let distinctBodies: Int
    /// The encoded records, for `--only writer`.
    var records: [ExchangeRecord] { rows.map(\.record) }

    init(_ exchanges: [Exchange]) throws {
        var ids: [[UInt8]: Int64] = [:]
        func action(_ body: BodyRecord?) -> BodyAction? {
            guard let body else { return nil }
            if let id = ids[body.hash] { return .reuse(id: id) }
            let id = Int64(ids.count + 1)  // bodies get ids 1, 2, ... in a fresh file
            ids[body.hash] = id
            return .insert(hash: body.hash, size: body.size, encoding: body.encoding.rawValue, data: body.stored)
        }
        rows = try exchanges.map { exchange in
            let record = try ExchangeRecord(exchange, compressionThreshold: ExchangeStore.Configuration().compressionThreshold)
            let request = action(record.requestBody)
            let response = action(record.responseBody)
            return Row(record: record, requestBody: request, responseBody: response)
        }
        distinctBodies = ids.count
    }

    /// Inserts the rows into a new store at `path`, `batchSize` per transaction (the sink's
    /// largest transaction, so both write the same transactions); returns the seconds taken.
    /// With `backgroundCheckpoints` false (the baseline proper) SQLite checkpoints the way it
    /// does by default, inside the commit that fills the WAL; true lends it the store's
    /// `BackgroundCheckpointer`, to show how much of the sink's lead over the baseline that is.
    func insert(into path: String, batchSize: Int, backgroundCheckpoints: Bool) throws -> Double {
        let store = try ExchangeStore(path: path, configuration: .init(checkpointsInBackground: backgroundCheckpoints))
        let seconds = try store.withDatabase { db -> Double in
            let insertExchange = try db.prepare(RecordWriter.insertSQL)
            let insertBody = try db.prepare(RecordWriter.insertBodySQL)
            let insertLabel = try db.prepare(RecordWriter.insertLabelSQL)
            func bodyID(_ action: BodyAction?) throws -> Int64? {
                switch action {
                case nil: return nil
                case .reuse(let id): return id
                case .insert(let hash, let size, let encoding, let data):
                    insertBody.reset()
                    try insertBody.bind(bytes: hash, at: 1)
                    try insertBody.bind(size, at: 2)
                    try insertBody.bind(encoding, at: 3)
                    try insertBody.bind(data, at: 4)
                    try insertBody.step()
                    return db.lastInsertRowID
                }
            }
            let start = DispatchTime.now()
            var offset = 0
            while offset < rows.count {
                let batch = rows[offset ..< min(rows.count, offset + batchSize)]
                try db.inTransaction(.immediate) {
                    for row in batch {
                        let requestID = try bodyID(row.requestBody)
                        let responseID = try bodyID(row.responseBody)
                        insertExchange.reset()
                        try RecordWriter.bind(row.record, requestBodyID: requestID, responseBodyID: responseID, to: insertExchange)
                        try insertExchange.step()
                        let rowid = db.lastInsertRowID
                        for pair in row.record.labelPairs {
                            insertLabel.reset()
                            try insertLabel.bind(pair.key, at: 1)
                            try insertLabel.bind(pair.value, at: 2)
                            try insertLabel.bind(row.record.startedAt, at: 3)
                            try insertLabel.bind(rowid, at: 4)
                            try insertLabel.step()
                        }
                    }
                }
                offset += batchSize
            }
            return StoreBenchmark.seconds(since: start)
        }
        guard try store.count() == rows.count else { throw BenchmarkFailure("baseline stored the wrong number of rows") }
        return seconds
    }
}
