import AlbumCore
import AlbumSystem
import CSQLite3
import FoundationEssentials
import Glibc

/// The persistent index of one library: every regular file with its identity (inode, size,
/// mtime) and what its header said, so a remount re-reads only what changed.
///
/// A corrupt, truncated or foreign file is moved aside and a new index started, with one warning
/// (`openOrRebuild`); a locked one is left alone. Damage inside a sound-looking file shows only
/// to `quick_check`, run at open or, for a mount that shows a views snapshot first, once the
/// mount answers (`damage()`).
public final class LibraryIndex: Sendable {
    /// The one connection, which every table's type below runs its requests on.
    private let connection: IndexConnection
    public let path: String
    /// The `files` table (`FileIndexStore`).
    let fileRows: FileRows
    /// The `content_hashes` table (`ContentHashStore`).
    let contentHashRows: ContentHashRows
    /// The `similar_hashes` table (`SimilarHashStore`).
    let similarHashRows: SimilarHashRows
    /// The `thumbnail_failures` table.
    public let thumbnailFailures: ThumbnailFailureRows

    /// - Parameter checking: run `quick_check` now (else the caller asks `damage()` later).
    init(path: String, timeout: Int32, checking: Bool = true) throws(SQLiteDatabase.Failure) {
        self.path = path
        let db = try SQLiteDatabase(path: path, busyTimeoutMs: timeout)
        // A foreign or damaged file fails here (SQLITE_NOTADB / SQLITE_CORRUPT) or at the id check.
        guard case .int(let id)?? = try db.query("PRAGMA application_id").first?.first else {
            throw SQLiteDatabase.Failure(code: SQLITE_NOTADB, message: "no application id")
        }
        let tables = try db.query("SELECT count(*) FROM sqlite_master").first?.first?.int ?? 0
        if id == 0 && tables == 0 {
            try db.execute("PRAGMA application_id = \(IndexSchema.applicationID)")
        } else if id != IndexSchema.applicationID {
            throw SQLiteDatabase.Failure(code: SQLITE_NOTADB, message: "not an albumfs index")
        }
        try db.execute("PRAGMA journal_mode = WAL")
        // The index can always be rebuilt from the library: no fsync per transaction.
        try db.execute("PRAGMA synchronous = NORMAL")
        try db.migrate(IndexSchema.migrations)
        if checking, let damage = try Self.damage(of: db) { throw SQLiteDatabase.Failure(code: SQLITE_CORRUPT, message: "damaged: " + damage) }
        connection = IndexConnection(db)
        fileRows = FileRows(connection: connection)
        contentHashRows = ContentHashRows(connection: connection)
        similarHashRows = SimilarHashRows(connection: connection)
        thumbnailFailures = ThumbnailFailureRows(connection: connection)
    }

    /// What `PRAGMA quick_check` finds wrong, on one line, or nil when the index is sound. Damage
    /// inside the file (a page overwritten) is no error at open: only the check tells, and the
    /// index would then fail every read and write of every mount. The check reads every page
    /// (docs/benchmarks.md has its cost).
    static func damage(of db: SQLiteDatabase) throws(SQLiteDatabase.Failure) -> String? {
        let check = try db.query("PRAGMA quick_check(1)").first?.first?.text ?? ""
        return check == "ok" ? nil : check.split(separator: "\n").joined(separator: "; ")
    }

    /// What is wrong with an index opened without its check (`openOrRebuild`'s `checking`), or
    /// nil when it is sound; a check that cannot run says why.
    public func damage() -> String? {
        connection.withDatabase { db in
            do throws(SQLiteDatabase.Failure) { return try Self.damage(of: db) } catch { return error.message }
        }
    }

    /// Opens the index at `path`, or moves a bad one aside (`PATH.broken-<time>`) and starts a new
    /// one. `warn` receives the one warning.
    /// `checking` false leaves `quick_check` to the caller (`damage()`), who can run it once the
    /// mount answers.
    public static func openOrRebuild(path: String, checking: Bool = true, warn: (String) -> Void) throws(Errno) -> LibraryIndex {
        try? FileManager.default.createDirectory(atPath: path.folderBeforeLastSlash, withIntermediateDirectories: true)
        do throws(SQLiteDatabase.Failure) {
            return try LibraryIndex(path: path, timeout: 2000, checking: checking)
        } catch {
            // A file that cannot be opened or written at all (a read-only folder or filesystem, no
            // permission, a full disk) is no bad index: moving it aside would not help.
            if Self.isAccessFailure(error.code) { throw error.errno }
            // An I/O error on a full disk (SQLite could not size its WAL index there) is the
            // disk's, not the file's: moving a sound index aside would only lose it.
            if error.code & 0xFF == SQLITE_IOERR, Self.hasNoRoom(path.folderBeforeLastSlash) { throw Errno(rawValue: ENOSPC) }
            // Busy is not broken: another process holding the index locked past the busy
            // timeout leaves it alone, and so does any failure that is not the file's content.
            if error.code & 0xFF == SQLITE_BUSY || error.code & 0xFF == SQLITE_LOCKED {
                warn("albumfs: warning: the index \(path) is locked by another process (\(error.message)); it is left as it is")
                throw Errno(rawValue: EBUSY)
            }
            guard error.code & 0xFF == SQLITE_CORRUPT || error.code & 0xFF == SQLITE_NOTADB else { throw error.errno }
            let aside = path + ".broken-\(Int(Date().timeIntervalSince1970))"
            guard rename(path, aside) == 0 || errno == ENOENT else {
                let renameError = Errno.current
                warn("albumfs: warning: the index \(path) cannot be used (\(error.message)) nor moved aside (\(renameError))")
                throw renameError
            }
            warn("albumfs: warning: the index \(path) cannot be used (\(error.message)); moved aside to \(aside), rebuilding")
            for suffix in ["-wal", "-shm"] { _ = rename(path + suffix, aside + suffix) }
            do throws(SQLiteDatabase.Failure) {
                return try LibraryIndex(path: path, timeout: 2000)
            } catch {
                throw error.errno
            }
        }
    }

    public func libraryDevice() throws(Errno) -> UInt64? {
        try connection.run { db in
            guard case .int(let v)?? = try db.query("SELECT value FROM library WHERE key = 'device'").first?.first else { return nil }
            return UInt64(bitPattern: v)
        }
    }

    /// How many times the files' rows have been written: a views snapshot shows the generation
    /// it was made at (`ViewSnapshot`), and any write since makes it another's. 0: never written.
    public func generation() throws(Errno) -> Int64 {
        try connection.run { db in
            guard case .int(let v)?? = try db.query("SELECT value FROM library WHERE key = 'generation'").first?.first else { return 0 }
            return v
        }
    }

    public func saveLibraryDevice(_ device: UInt64) throws(Errno) {
        try connection.run { db in
            try db.query("INSERT OR REPLACE INTO library (key, value) VALUES ('device', ?)", [.int(Int64(bitPattern: device))])
        }
    }

    /// Whether the filesystem holding `folder` has no block left for us (`statvfs`).
    static func hasNoRoom(_ folder: String) -> Bool {
        var fs = statvfs()
        return statvfs(folder, &fs) == 0 && fs.f_bavail == 0
    }

    /// SQLite's codes for a file that cannot be opened or written, whatever it holds. (Not
    /// SQLITE_IOERR: a file cut short can read as one, and a truncated index is moved aside.)
    static func isAccessFailure(_ code: Int32) -> Bool {
        [SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_PERM, SQLITE_FULL].contains(code & 0xFF)
    }

    /// Folds the WAL into the index file (`SQLiteDatabase.foldWAL`), at unmount.
    public func foldWAL() throws(Errno) {
        try connection.run { db in try db.foldWAL() }
    }
}

/// The `files` table and the library's own facts, for the scanner and the live updates.
extension LibraryIndex: FileIndexStore {
    public func loadAll() throws(Errno) -> [IndexedFile] { try fileRows.loadAll() }
    public func forEach(_ body: (IndexedFile) -> Void) throws(Errno) { try fileRows.forEach(body) }
    public func save(upserts: [IndexedFile], removals: [String]) throws(Errno) { try fileRows.save(upserts: upserts, removals: removals) }
    public func save(moves: [FileMove]) throws(Errno) { try fileRows.save(moves: moves) }
    public func prepareLookups() { fileRows.prepareLookups() }

    public func files(sameAs asked: [(path: String, identity: FileIdentity)]) throws(Errno) -> [IndexedFile?] {
        try fileRows.files(sameAs: asked)
    }
}

extension LibraryIndex: ContentHashStore {
    public func contentHashes() throws(Errno) -> [ContentHashRecord] { try contentHashRows.contentHashes() }

    public func saveContentHashes(_ records: [ContentHashRecord], removing removals: [String]) throws(Errno) {
        try contentHashRows.saveContentHashes(records, removing: removals)
    }
}

extension LibraryIndex: SimilarHashStore {
    public func similarHashes() throws(Errno) -> [SimilarHashRecord] { try similarHashRows.similarHashes() }
    public func groupedSimilarHashes() throws(Errno) -> [SimilarHashRecord] { try similarHashRows.groupedSimilarHashes() }
    public func forEachSimilarHash(_ body: (SimilarHashRecord) -> Void) throws(Errno) { try similarHashRows.forEachSimilarHash(body) }

    public func saveSimilarHashes(_ records: [SimilarHashRecord], removing removals: [String]) throws(Errno) {
        try similarHashRows.saveSimilarHashes(records, removing: removals)
    }
}
