import AlbumCore
import AlbumSystem

/// The index's one SQLite connection, which each table's type (`FileRows`, `ContentHashRows`,
/// `SimilarHashRows`, `ThumbnailFailureRows`) reaches through `run`: every request runs under its
/// lock, which also keeps each transaction whole.
final class IndexConnection: Sendable {
    /// The connection (opened NOMUTEX: SQLite does not lock it) and what is known of its indexes,
    /// reached only under this lock.
    private let state: Locked<State>

    struct State: Sendable {
        let db: SQLiteDatabase
        /// Whether the index by inode that `FileRows.files(sameAs:)` looks up exists (nil: not
        /// asked yet). Made by the first lookup, not by a migration: kept up while a first scan
        /// writes its rows, it slows that scan down; made from those rows afterwards, it costs
        /// little, once (docs/benchmarks.md).
        var identityIndexReady: Bool?
    }

    init(_ db: SQLiteDatabase) {
        state = Locked(State(db: db))
    }

    /// Runs `body` with the connection, under the lock.
    @discardableResult
    func run<T>(_ body: (SQLiteDatabase) throws -> T) throws(Errno) -> T {
        try SQLiteDatabase.locked(state) { try body($0.db) }
    }

    /// Runs `body` with the connection, under the lock, for a caller that keeps SQLite's own
    /// failure rather than its errno.
    func withDatabase<T: Sendable>(_ body: (SQLiteDatabase) -> T) -> T {
        state.withLock { body($0.db) }
    }

    /// Runs `body` with the connection and what is known of its indexes, under the lock.
    func runWithState<T>(_ body: (inout State) throws -> T) throws(Errno) -> T {
        try SQLiteDatabase.locked(state, body)
    }

    /// Runs `body` in one write transaction (rolled back if it fails).
    /// - Parameter countingGeneration: count it as a write of the files' rows (`LibraryIndex.generation`).
    func transaction(countingGeneration: Bool, _ body: (SQLiteDatabase) throws(SQLiteDatabase.Failure) -> Void) throws(Errno) {
        try run { db in
            try db.execute("BEGIN IMMEDIATE")
            do {
                try body(db)
                if countingGeneration {
                    try db.execute("INSERT INTO library (key, value) VALUES ('generation', 1) ON CONFLICT (key) DO UPDATE SET value = value + 1")
                }
                try db.execute("COMMIT")
            } catch {
                try? db.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// How the `mtime_ns` and `ctime_ns` columns hold a time, and back.
    static func nanoseconds(_ t: Timestamp) -> Int64 { t.nanosecondsSinceEpoch }
    static func time(_ ns: Int64) -> Timestamp { Timestamp(nanosecondsSinceEpoch: ns) }
}
