import Foundation

/// The migrations that build the store's schema (documented in docs/schema.md).
enum StoreSchema {
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.register("v1: exchanges, bodies, labels, meta") { db in
            try db.execute(version1)
        }
        migrator.register("v2: no index on body hashes; indexes for method and endpoint; the time index covers summaries") { db in
            try db.execute(version2)
        }
        return migrator
    }()

    /// Every column of `exchanges` the store reads back, in `ExchangeRow` order.
    static let exchangeColumns = """
        rowid, id, session_id, started_at, started_ref, duration, method, url, status, \
        error_category, error_domain, error_code, error_message, request_size, response_size, \
        request_body_id, response_body_id, request_headers, response_headers, request_body, response_body, \
        response_http_version, response_url, labels, capture_path, task_kind, redirects, metrics, modifications
        """

    static let version1 = """
        CREATE TABLE bodies (
            id INTEGER PRIMARY KEY,
            hash BLOB NOT NULL UNIQUE,
            size INTEGER NOT NULL,
            encoding TEXT NOT NULL CHECK (encoding IN ('identity', 'zlib')),
            data BLOB NOT NULL,
            refs INTEGER NOT NULL
        );
        CREATE TABLE exchanges (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            session_id TEXT NOT NULL,
            started_at REAL NOT NULL,
            started_iso TEXT GENERATED ALWAYS AS (strftime('%Y-%m-%dT%H:%M:%fZ', started_at, 'unixepoch')) VIRTUAL,
            duration REAL,
            method TEXT NOT NULL,
            url TEXT NOT NULL,
            host TEXT,
            path TEXT NOT NULL,
            url_template TEXT NOT NULL,
            status INTEGER,
            error_category TEXT,
            error_domain TEXT,
            error_code INTEGER,
            error_message TEXT,
            request_size INTEGER,
            response_size INTEGER,
            request_body_id INTEGER REFERENCES bodies(id),
            response_body_id INTEGER REFERENCES bodies(id),
            request_headers TEXT NOT NULL,
            response_headers TEXT,
            request_body TEXT,
            response_body TEXT,
            response_http_version TEXT,
            response_url TEXT,
            labels TEXT NOT NULL,
            capture_path TEXT NOT NULL,
            task_kind TEXT NOT NULL,
            redirects TEXT,
            metrics TEXT,
            modifications TEXT,
            started_ref REAL NOT NULL
        );
        CREATE INDEX exchanges_by_time ON exchanges(started_at);
        CREATE INDEX exchanges_by_host ON exchanges(host, started_at);
        CREATE INDEX exchanges_by_status ON exchanges(status, started_at);
        CREATE INDEX exchanges_by_session ON exchanges(session_id, started_at);
        CREATE INDEX exchanges_by_error ON exchanges(error_category, started_at) WHERE error_category IS NOT NULL;
        CREATE TABLE exchange_labels (
            key TEXT NOT NULL,
            value TEXT NOT NULL,
            started_at REAL NOT NULL,
            exchange_rowid INTEGER NOT NULL REFERENCES exchanges(rowid),
            PRIMARY KEY (key, value, started_at, exchange_rowid)
        ) WITHOUT ROWID;
        CREATE TABLE meta (
            key TEXT PRIMARY KEY,
            value
        ) WITHOUT ROWID;
        INSERT INTO meta(key, value) VALUES ('dropped_events', 0);
        """

    /// Measured with the benchmark's rows through Python's `sqlite3` (BENCHMARKS.md): the unique
    /// index on body hashes cost about a third of the ingest rate, because every new body wrote a random page
    /// of it; `RecentBodies` now finds repeated bytes instead. The new indexes are keyed so that
    /// rows arrive at a few insertion points in time order (a method, an endpoint), never at
    /// random positions as an index led by a path, duration or size would. `exchanges_by_time`
    /// also carries the columns a summary adds up, so a summary reads it instead of the rows.
    /// Bodies are rebuilt the way SQLite documents for dropping a constraint (foreign keys are
    /// off on the store's connection).
    private static let version2 = """
        CREATE TABLE bodies_v2 (
            id INTEGER PRIMARY KEY,
            hash BLOB NOT NULL,
            size INTEGER NOT NULL,
            encoding TEXT NOT NULL CHECK (encoding IN ('identity', 'zlib')),
            data BLOB NOT NULL,
            refs INTEGER NOT NULL
        );
        INSERT INTO bodies_v2 (id, hash, size, encoding, data, refs) SELECT id, hash, size, encoding, data, refs FROM bodies;
        DROP TABLE bodies;
        ALTER TABLE bodies_v2 RENAME TO bodies;
        DROP INDEX exchanges_by_time;
        CREATE INDEX exchanges_by_time ON exchanges(started_at, status, duration, request_size, response_size, started_ref);
        CREATE INDEX exchanges_by_method ON exchanges(method COLLATE NOCASE, started_at);
        CREATE INDEX exchanges_by_template ON exchanges(url_template, started_at, path);
        """
}
