import AlbumCore
import AlbumSystem
import CSQLite3
import FoundationEssentials
import Glibc

/// A SQLite connection: a Swift owner of `sqlite3*`, closed in `deinit`. Every call goes through
/// `check`, the one place that turns result codes into errors (SQLite.swift's `check`).
/// (`@unchecked Sendable`: opened NOMUTEX, it is safe only one thread at a time, which its owners
/// make sure of: `LibraryIndex` and `PickStore` hold it inside the `Locked` that is their one way
/// to it; `MovedLibraryIndex` uses its own on one thread and closes it.)
final class SQLiteDatabase: @unchecked Sendable {
    private let db: OpaquePointer

    struct Failure: Error, CustomStringConvertible {
        let code: Int32
        let message: String
        var description: String { "SQLite error \(code): \(message)" }

        /// The errno a filesystem caller sees.
        var errno: Errno {
            switch code & 0xFF {
            case SQLITE_FULL: return Errno(rawValue: ENOSPC)
            case SQLITE_READONLY, SQLITE_PERM, SQLITE_CANTOPEN: return .readOnlyFileSystem
            case SQLITE_BUSY, SQLITE_LOCKED: return Errno(rawValue: EBUSY)
            default: return .ioError
            }
        }
    }

    /// Opened NOMUTEX (SQLite's multi-thread mode): the owners of a connection (LibraryIndex,
    /// PickStore) use it only under a lock of their own, which also keeps each transaction whole,
    /// so SQLite's mutex around every call is redundant. With it, and with SQLite's global
    /// allocation statistics (a mutex on every allocation, `statisticsOff`), a scan's index writer
    /// spends much of its time locking and unlocking (docs/benchmarks.md).
    /// - Parameter create: whether a missing file is made (false: opening it fails).
    init(path: String, busyTimeoutMs: Int32 = 5000, create: Bool = true) throws(Failure) {
        Self.statisticsOff
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(handle)
            throw Failure(code: rc, message: message)
        }
        db = handle
        try check(sqlite3_busy_timeout(db, busyTimeoutMs))
    }

    deinit { sqlite3_close_v2(db) }

    /// Turns off SQLite's global allocation statistics, which albumfs never reads, once, before the
    /// first connection (SQLite accepts the setting only before it initialises; were it refused,
    /// SQLITE_MISUSE, the statistics would simply stay on).
    private static let statisticsOff: Void = { _ = albumfs_sqlite3_config_memstatus(0) }()

    /// Whether SQLite locks this connection itself (for tests: it must not, see `init`).
    var hasOwnMutex: Bool { sqlite3_db_mutex(db) != nil }

    /// What SQLite's allocation statistics say is in use (for tests: 0, they are off).
    static var statisticsBytesInUse: Int64 { sqlite3_memory_used() }

    fileprivate func check(_ rc: Int32) throws(Failure) {
        guard rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW else {
            throw Failure(code: rc, message: String(cString: sqlite3_errmsg(db)))
        }
    }

    /// Runs SQL with no parameters and no rows (schema, pragmas).
    func execute(_ sql: String) throws(Failure) {
        try check(sqlite3_exec(db, sql, nil, nil, nil))
    }

    /// Copies the WAL's pages into the database file and empties the WAL, so the file alone holds
    /// everything (a copy or backup of just it loses nothing). SQLite does this when the last
    /// connection closes, which a daemon ending with `exit` never does.
    func foldWAL() throws(Failure) {
        try execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// Copies this database, page by page, into a new database file at `path` (SQLite's online
    /// backup: a consistent copy, the WAL's committed pages included, while others may write).
    /// Page by page, not `VACUUM INTO`, which rebuilds every table and index, while a moved
    /// library's mount waits to answer.
    func copy(to path: String) throws(Failure) {
        let target = try SQLiteDatabase(path: path)
        guard let backup = sqlite3_backup_init(target.db, "main", db, "main") else {
            throw Failure(code: sqlite3_errcode(target.db), message: String(cString: sqlite3_errmsg(target.db)))
        }
        let rc = sqlite3_backup_step(backup, -1)
        let finished = sqlite3_backup_finish(backup)
        guard rc == SQLITE_DONE else { throw Failure(code: rc, message: String(cString: sqlite3_errstr(rc))) }
        try target.check(finished)
    }

    enum Value {
        case int(Int64)
        case text(String)
    }

    /// A prepared statement, reused for many rows (`sqlite3_reset` between runs).
    final class Statement {
        fileprivate let stmt: OpaquePointer
        fileprivate unowned let owner: SQLiteDatabase
        fileprivate init(_ stmt: OpaquePointer, _ owner: SQLiteDatabase) {
            self.stmt = stmt
            self.owner = owner
        }

        /// Binds parameters (nil is NULL), steps through every row, resets.
        @discardableResult
        func run(_ params: [Value?]) throws(Failure) -> [[Value?]] {
            var rows: [[Value?]] = []
            try run(binding: { (b: inout Binder) throws(Failure) in
                for p in params {
                    switch p {
                    case .int(let v)?: try b.int(v)
                    case .text(let s)?: try b.text(s)
                    case nil: b.null()
                    }
                }
            }, each: { rows.append($0.values) })
            return rows
        }

        /// Binds the parameters in order through `bind`, steps through every row, handing each to
        /// `body` as it is stepped to, resets. No array of values per row either way: a scan
        /// writes 100,000 rows of 27 values, and a mount reads them back.
        func run(binding bind: (inout Binder) throws(Failure) -> Void, each body: (Row) -> Void = { _ in }) throws(Failure) {
            defer { sqlite3_reset(stmt); sqlite3_clear_bindings(stmt) }
            // One strong reference for the whole run: each use of an `unowned` field checks and
            // retains.
            let owner = self.owner
            var binder = Binder(stmt: stmt, owner: owner)
            try bind(&binder)
            while true {
                let rc = sqlite3_step(stmt)
                if rc == SQLITE_DONE { break }
                guard rc == SQLITE_ROW else { try owner.check(rc); break }
                body(Row(stmt: stmt))
            }
        }
    }

    /// The row a statement stands on, read column by column (valid only while it is handed out).
    struct Row {
        fileprivate let stmt: OpaquePointer

        var count: Int { Int(sqlite3_column_count(stmt)) }

        /// The column's integer; nil for NULL or any other type.
        func int(_ column: Int) -> Int64? {
            sqlite3_column_type(stmt, Int32(column)) == SQLITE_INTEGER ? sqlite3_column_int64(stmt, Int32(column)) : nil
        }

        /// The column as text (its bytes, NUL included); nil for NULL or an integer.
        func text(_ column: Int) -> String? {
            let c = Int32(column)
            switch sqlite3_column_type(stmt, c) {
            case SQLITE_NULL, SQLITE_INTEGER: return nil
            default:
                // (Asked for first: the byte count is of the text form.)
                guard let bytes = sqlite3_column_text(stmt, c) else { return "" }
                return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(stmt, c))), as: UTF8.self)
            }
        }

        /// Every column: an integer, text, or nil for NULL.
        var values: [Value?] {
            (0..<count).map { c in
                if let v = int(c) { return .int(v) }
                return text(c).map(Value.text)
            }
        }
    }

    /// Binds a statement's parameters one after the other (1, 2, …).
    struct Binder {
        fileprivate let stmt: OpaquePointer
        fileprivate let owner: SQLiteDatabase
        private var index: Int32 = 0
        /// SQLITE_TRANSIENT: SQLite copies the bytes (the Swift string's buffer is temporary).
        private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

        fileprivate init(stmt: OpaquePointer, owner: SQLiteDatabase) {
            self.stmt = stmt
            self.owner = owner
        }

        mutating func int(_ value: Int64?) throws(Failure) {
            index += 1
            guard let value else { return }
            try owner.check(sqlite3_bind_int64(stmt, index, value))
        }

        mutating func text(_ value: String?) throws(Failure) {
            index += 1
            guard var value else { return }
            let (stmt, index) = (stmt, index)
            // With its length, from the string's own UTF-8: no C string made, no strlen.
            let rc = value.withUTF8 { bytes -> Int32 in
                // (An empty buffer may have no address, and a NULL pointer would bind SQL NULL.)
                guard let base = bytes.baseAddress else { return sqlite3_bind_text(stmt, index, "", 0, Self.transient) }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    sqlite3_bind_text(stmt, index, $0, Int32(bytes.count), Self.transient)
                }
            }
            try owner.check(rc)
        }

        /// NULL: a new statement's parameters are NULL already, and `clear_bindings` resets them.
        mutating func null() { index += 1 }
    }

    /// Prepares `sql` once for the duration of `body`.
    func prepared<T>(_ sql: String, _ body: (Statement) throws(Failure) -> T) throws(Failure) -> T {
        var stmt: OpaquePointer?
        try check(sqlite3_prepare_v2(db, sql, -1, &stmt, nil))
        guard let stmt else { throw Failure(code: SQLITE_MISUSE, message: "empty statement") }
        defer { sqlite3_finalize(stmt) }
        return try body(Statement(stmt, self))
    }

    /// Runs one statement with bound parameters and returns its rows (NULL reads as nil).
    @discardableResult
    func query(_ sql: String, _ params: [Value?] = []) throws(Failure) -> [[Value?]] {
        try prepared(sql) { statement throws(Failure) in try statement.run(params) }
    }

    /// Runs `body` with `lock`'s state (a connection and what goes with it), the lock held;
    /// SQLite failures become the errno a filesystem caller sees.
    static func locked<State: Sendable, T>(_ lock: borrowing Locked<State>, _ body: (inout State) throws -> T) throws(Errno) -> T {
        do {
            return try lock.withLock { state throws -> T in try body(&state) }
        } catch let failure as Failure {
            throw failure.errno
        } catch {
            throw Errno.ioError
        }
    }

    var userVersion: Int64 {
        get throws(Failure) {
            guard case .int(let v)?? = try query("PRAGMA user_version").first?.first else { return 0 }
            return v
        }
    }

    /// Applies numbered migrations above the stored `user_version`, each in its own transaction.
    /// A file of a later version than `migrations` knows was written by a newer albumfs: its
    /// tables may mean something else, so it is refused (`SQLITE_NOTADB`), never read.
    func migrate(_ migrations: [String]) throws(Failure) {
        let current = Int(try userVersion)
        guard current <= migrations.count else {
            throw Failure(code: SQLITE_NOTADB, message: "written by a newer albumfs (schema \(current); this albumfs reads up to \(migrations.count))")
        }
        for (i, sql) in migrations.enumerated() where i + 1 > current {
            try execute("BEGIN IMMEDIATE")
            do {
                try execute(sql)
                try execute("PRAGMA user_version = \(i + 1)")
                try execute("COMMIT")
            } catch {
                try? execute("ROLLBACK")
                throw error
            }
        }
    }
}

extension Optional where Wrapped == SQLiteDatabase.Value {
    var int: Int64 { if case .int(let v)? = self { return v } else { return 0 } }
    var text: String {
        switch self {
        case .text(let s)?: return s
        case .int(let v)?: return String(v)
        case nil: return ""
        }
    }
}
