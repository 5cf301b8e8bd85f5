import CSQLite

/// Ordered schema migrations, tracked in `PRAGMA user_version`.
///
/// Migration number N (1-based, in registration order) runs once, in its own transaction that
/// also sets `user_version` to N, so a crash leaves the schema either before or after a step.
/// Running the migrator again does nothing; a file from a newer build (a higher version than
/// this build knows) is refused rather than misread.
///
/// ```swift
/// var migrator = DatabaseMigrator()
/// migrator.register("create t") { db in try db.execute("CREATE TABLE t(a)") }
/// try queue.sync { db in try migrator.migrate(db) }
/// ```
public struct DatabaseMigrator: Sendable {
    private var steps: [(name: String, body: @Sendable (Database) throws -> Void)] = []

    public init() {}

    /// Adds a step after those already registered.
    public mutating func register(_ name: String, _ body: @escaping @Sendable (Database) throws -> Void) {
        steps.append((name, body))
    }

    /// The version a fully migrated database has.
    public var latestVersion: Int { steps.count }

    /// The names of the registered steps, in order.
    public var stepNames: [String] { steps.map(\.name) }

    /// The schema version stored in the file.
    public static func version(of db: Database) throws -> Int {
        Int(try db.pragma("user_version")?.int64 ?? 0)
    }

    /// Applies every step the database has not had yet. Returns the names of the steps applied.
    @discardableResult
    public func migrate(_ db: Database) throws -> [String] {
        let current = try Self.version(of: db)
        guard current <= steps.count else {
            throw DatabaseError(
                extendedResultCode: SQLITE_ERROR,
                message: "\(db.path) has schema version \(current), newer than this build knows (\(steps.count))")
        }
        var applied: [String] = []
        for (offset, step) in steps.enumerated() where offset >= current {
            try db.inTransaction(.immediate) {
                // Another connection may have migrated between our read and our lock.
                guard try Self.version(of: db) == offset else { return }
                try step.body(db)
                try db.execute("PRAGMA user_version = \(offset + 1)")
                applied.append(step.name)
            }
        }
        return applied
    }
}
