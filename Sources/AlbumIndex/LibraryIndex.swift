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
public final class LibraryIndex: FileIndexStore, Sendable {
    /// The connection (opened NOMUTEX: SQLite does not lock it) and what is known of its indexes,
    /// reached only through `run`, under this lock, which also keeps each transaction whole.
    private let connection: Locked<Connection>
    public let path: String

    struct Connection: Sendable {
        let db: SQLiteDatabase
        /// Whether the index by inode that `files(sameAs:)` looks up exists (nil: not asked
        /// yet). Made by the first lookup, not by a migration: kept up while a first scan writes
        /// its rows, it slows that scan down; made from those rows afterwards, it costs little,
        /// once (docs/benchmarks.md).
        var identityIndexReady: Bool?
    }

    /// `PRAGMA application_id`: "albf". A database without it is not ours.
    static let applicationID: Int64 = 0x616C_6266

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
            try db.execute("PRAGMA application_id = \(Self.applicationID)")
        } else if id != Self.applicationID {
            throw SQLiteDatabase.Failure(code: SQLITE_NOTADB, message: "not an albumfs index")
        }
        try db.execute("PRAGMA journal_mode = WAL")
        // The index can always be rebuilt from the library: no fsync per transaction.
        try db.execute("PRAGMA synchronous = NORMAL")
        try db.migrate(Self.migrations)
        if checking, let damage = try Self.damage(of: db) { throw SQLiteDatabase.Failure(code: SQLITE_CORRUPT, message: "damaged: " + damage) }
        connection = Locked(Connection(db: db))
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
        connection.withLock { c in
            do throws(SQLiteDatabase.Failure) { return try Self.damage(of: c.db) } catch { return error.message }
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

    public func prepareLookups() {
        _ = try? runWithState { Self.prepareIdentityIndex(&$0) }
    }

    /// Makes the index by inode, once (under the lock). (Failing, on a full disk: no lookup, as if
    /// nothing were known; the files are read.)
    private static func prepareIdentityIndex(_ c: inout Connection) {
        if c.identityIndexReady == nil {
            c.identityIndexReady = (try? c.db.execute("CREATE INDEX IF NOT EXISTS files_by_inode ON files (inode)")) != nil
        }
    }

    public func libraryDevice() throws(Errno) -> UInt64? {
        try run { db in
            guard case .int(let v)?? = try db.query("SELECT value FROM library WHERE key = 'device'").first?.first else { return nil }
            return UInt64(bitPattern: v)
        }
    }

    /// How many times the files' rows have been written: a views snapshot shows the generation
    /// it was made at (`ViewSnapshot`), and any write since makes it another's. 0: never written.
    public func generation() throws(Errno) -> Int64 {
        try run { db in
            guard case .int(let v)?? = try db.query("SELECT value FROM library WHERE key = 'generation'").first?.first else { return 0 }
            return v
        }
    }

    public func saveLibraryDevice(_ device: UInt64) throws(Errno) {
        try run { db in
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

    public func loadAll() throws(Errno) -> [IndexedFile] {
        var files: [IndexedFile] = []
        try forEach { files.append($0) }
        return files
    }

    /// A row's columns, in the order `bind` gives and `decode` takes them.
    static let rowColumns = ["path", "inode", "size", "mtime_ns", "ctime_ns", "kind", "message"] + evidenceColumns
        + ["exposure", "orientation", "width", "height", "problems", "uid", "gid", "mode", "motion_offset", "motion_length"]

    public func forEach(_ body: (IndexedFile) -> Void) throws(Errno) {
        try run { db in
            try db.prepared("SELECT \(Self.rowColumns.joined(separator: ", ")) FROM files") { statement throws(SQLiteDatabase.Failure) in
                try statement.run(binding: { _ in }) { body(Self.decode($0)) }
            }
        }
    }

    public func files(sameAs files: [(path: String, identity: FileIdentity)]) throws(Errno) -> [IndexedFile?] {
        var found = [IndexedFile?](repeating: nil, count: files.count)
        // Inode 0: numbers the filesystem makes up (docs/design.md), which name no file.
        let asked = files.indices.filter { files[$0].identity.inode != 0 && files[$0].identity.size >= 0 }
        guard !asked.isEmpty else { return found }
        try runWithState { c in
            Self.prepareIdentityIndex(&c)
            guard c.identityIndexReady == true else { return }
            let db = c.db
            // One statement and one read transaction for them all: asked one by one, each would
            // parse its SQL and take SQLite's locks again.
            try db.execute("BEGIN")
            defer { try? db.execute("COMMIT") }
            let sql = "SELECT \(Self.rowColumns.joined(separator: ", ")) FROM files WHERE inode = ? AND size = ? AND mtime_ns = ? AND path <> ?"
            try db.prepared(sql) { statement throws(SQLiteDatabase.Failure) in
                for i in asked {
                    let (path, identity) = files[i]
                    try statement.run(binding: { (b: inout SQLiteDatabase.Binder) throws(SQLiteDatabase.Failure) in
                        try b.int(Int64(bitPattern: identity.inode))
                        try b.int(identity.size)
                        try b.int(Self.nanoseconds(identity.mtime))
                        try b.text(path)
                    }) { row in
                        guard found[i] == nil else { return }
                        let file = Self.decode(row)
                        if Self.holds(file, at: path) { found[i] = file }
                    }
                }
            }
        }
        return found
    }

    /// Whether what the index says of a file may hold for the same file at `relativePath`: not
    /// where reading it failed (what fixes that changes no identity, so such a file is read again
    /// wherever it is); under another name only for a photo its content made and whose ctime when
    /// read is known (`changedWhenRead`: the caller then checks the file's ctime is still that one,
    /// which tells it from one rewritten since and from a new file given a deleted one's inode
    /// number, size and mtime: `rm a.jpg; cp -p b.jpg c.jpg`; a rename sets a ctime too, so only a
    /// filesystem that keeps ctimes through renames shows a photo under another name here); what
    /// a name decided holds only under that name (`empty.jpg` is a damaged photo, `empty.txt` no
    /// photo).
    static func holds(_ file: IndexedFile, at relativePath: String) -> Bool {
        let sameName = file.relativePath.nameAfterLastSlash == relativePath.nameAfterLastSlash
        switch file.kind {
        case .ignored: return sameName
        case .problem(let message): return sameName && !ReadFailure.isReadFailure(message)
        case .photo(_, let e):
            return !e.problems.contains(where: ReadFailure.isReadFailure) && (sameName || file.changedWhenRead != nil)
        }
    }

    public func save(upserts: [IndexedFile], removals: [String]) throws(Errno) {
        guard !upserts.isEmpty || !removals.isEmpty else { return }
        try writing { (db) throws(SQLiteDatabase.Failure) in
            for path in removals {
                try db.query("DELETE FROM files WHERE path = ?", [.text(path)])
                try db.query("DELETE FROM thumbnail_failures WHERE path = ?", [.text(path)])
                try db.query("DELETE FROM content_hashes WHERE path = ?", [.text(path)])
                try db.query("DELETE FROM similar_hashes WHERE path = ?", [.text(path)])
            }
            // A thumbnail failure holds while its photo is the file that failed: one read again
            // as another file (rewritten, replaced, repaired in place) is tried again.
            try db.prepared("DELETE FROM thumbnail_failures WHERE path = ? AND NOT (inode = ? AND size = ? AND mtime_ns = ? AND ctime_ns IS ?)") {
                statement throws(SQLiteDatabase.Failure) in
                for file in upserts {
                    try statement.run(binding: { (b: inout SQLiteDatabase.Binder) throws(SQLiteDatabase.Failure) in
                        try b.text(file.relativePath)
                        try b.int(Int64(bitPattern: file.identity.inode))
                        try b.int(file.identity.size)
                        try b.int(Self.nanoseconds(file.identity.mtime))
                        try b.int(file.changedWhenRead.map(Self.nanoseconds))
                    })
                }
            }
            let columns = Self.rowColumns
            let sql = "INSERT OR REPLACE INTO files (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
            try db.prepared(sql) { statement throws(SQLiteDatabase.Failure) in
                for file in upserts { try statement.run(binding: { (b: inout SQLiteDatabase.Binder) throws(SQLiteDatabase.Failure) in try Self.bind(file, &b) }) }
            }
        }
    }

    /// Copied by SQLite itself, row to row: a folder of 100,000 renamed was read into the mount
    /// whole (evidence and all) and written back whole, only to change each row's path.
    public func save(moves: [FileMove]) throws(Errno) {
        guard !moves.isEmpty else { return }
        let columns = Self.rowColumns
        precondition(columns.first == "path")
        let sql = "INSERT OR REPLACE INTO files (\(columns.joined(separator: ", "))) SELECT ?, \(columns.dropFirst().joined(separator: ", ")) "
            + "FROM files WHERE path = ? AND inode = ? AND size = ? AND mtime_ns = ?"
        // A thumbnail failure follows its photo (same identity) to its new path.
        let failures = "UPDATE OR REPLACE thumbnail_failures SET path = ? WHERE path = ? AND inode = ? AND size = ? AND mtime_ns = ?"
        try writing { (db) throws(SQLiteDatabase.Failure) in
            for sql in [sql, failures] { try db.prepared(sql) { statement throws(SQLiteDatabase.Failure) in
                for move in moves {
                    try statement.run(binding: { (b: inout SQLiteDatabase.Binder) throws(SQLiteDatabase.Failure) in
                        try b.text(move.to)
                        try b.text(move.from)
                        try b.int(Int64(bitPattern: move.identity.inode))
                        try b.int(move.identity.size)
                        try b.int(Self.nanoseconds(move.identity.mtime))
                    })
                }
            } }
        }
    }

    /// Runs `body` in one write transaction (rolled back if it fails).
    private func writing(_ body: (SQLiteDatabase) throws(SQLiteDatabase.Failure) -> Void) throws(Errno) {
        try run { db in
            try db.execute("BEGIN IMMEDIATE")
            do {
                try body(db)
                try db.execute("INSERT INTO library (key, value) VALUES ('generation', 1) ON CONFLICT (key) DO UPDATE SET value = value + 1")
                try db.execute("COMMIT")
            } catch {
                try? db.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// Binds one row's parameters, in `save`'s column order.
    static func bind(_ f: IndexedFile, _ b: inout SQLiteDatabase.Binder) throws(SQLiteDatabase.Failure) {
        let id = f.identity
        try b.text(f.relativePath)
        try b.int(Int64(bitPattern: id.inode))
        try b.int(id.size)
        try b.int(nanoseconds(id.mtime))
        try b.int(f.changedWhenRead.map(nanoseconds))
        switch f.kind {
        case .ignored:
            try b.text("ignored")
        case .problem(let message):
            try b.text("problem")
            try b.text(message)
        case .photo(let format, let e):
            try b.text(format.rawValue)
            b.null()
            for text in [e.dateTimeOriginal, e.subSecTimeOriginal, e.offsetTimeOriginal, e.dateTimeDigitized,
                         e.subSecTimeDigitized, e.offsetTimeDigitized, e.xmpDateCreated, e.xmpDateTimeOriginal,
                         e.make, e.model, e.software, e.userComment, e.xmpUserComment, e.pngSoftware, e.gpsDateTimeUTC, e.pngComment,
                         e.xmpCreateDate, e.quickTimeCreationDate, e.contentIdentifier, e.movieCreationTime.map { String($0) },
                         e.dateTime, e.offsetTime, e.sidecar?.encoded, e.xmpRating, e.exifRating.map { String($0) },
                         e.kinds.isEmpty ? nil : e.kinds.encoded,
                         e.gpsLatitude.map { "\($0)" }, e.gpsLongitude.map { "\($0)" }] {
                try b.text(text)
            }
            try b.int(e.hasExposureData ? 1 : 0)
            try b.int(e.orientation.map(Int64.init))
            try b.int(e.pixelWidth.map(Int64.init))
            try b.int(e.pixelHeight.map(Int64.init))
            try b.text(e.problems.isEmpty ? nil : e.problems.joined(separator: "\n"))
            for value in [e.access?.uid, e.access?.gid, e.access?.mode] { try b.int(value.map(Int64.init)) }
            try b.int(e.motionVideo?.offset)
            try b.int(e.motionVideo?.length)
        }
        // (The columns not bound, the evidence of a file that is not a photo, stay NULL.)
    }

    /// How the `mtime_ns` and `ctime_ns` columns hold a time, and back.
    static func nanoseconds(_ t: Timestamp) -> Int64 { t.nanosecondsSinceEpoch }
    static func time(_ ns: Int64) -> Timestamp { Timestamp(nanosecondsSinceEpoch: ns) }

    static func decode(_ r: SQLiteDatabase.Row) -> IndexedFile {
        func text(_ i: Int) -> String? { r.text(i) }
        func int(_ i: Int) -> Int64? { r.int(i) }
        let identity = FileIdentity(inode: UInt64(bitPattern: int(1) ?? 0), size: int(2) ?? 0, mtime: time(int(3) ?? 0))
        let path = text(0) ?? ""
        let changed = int(4).map(time)
        switch text(5) {
        case "ignored": return IndexedFile(relativePath: path, identity: identity, kind: .ignored, changedWhenRead: changed)
        case "problem": return IndexedFile(relativePath: path, identity: identity, kind: .problem(text(6) ?? ""), changedWhenRead: changed)
        case let format?:
            var e = PhotoEvidence()
            let base = 7
            e.dateTimeOriginal = text(base); e.subSecTimeOriginal = text(base + 1); e.offsetTimeOriginal = text(base + 2)
            e.dateTimeDigitized = text(base + 3); e.subSecTimeDigitized = text(base + 4); e.offsetTimeDigitized = text(base + 5)
            e.xmpDateCreated = text(base + 6); e.xmpDateTimeOriginal = text(base + 7); e.make = text(base + 8); e.model = text(base + 9)
            e.software = text(base + 10); e.userComment = text(base + 11); e.xmpUserComment = text(base + 12); e.pngSoftware = text(base + 13)
            e.gpsDateTimeUTC = text(base + 14); e.pngComment = text(base + 15)
            e.xmpCreateDate = text(base + 16); e.quickTimeCreationDate = text(base + 17); e.contentIdentifier = text(base + 18)
            e.movieCreationTime = text(base + 19).flatMap { Int64($0) }
            e.dateTime = text(base + 20); e.offsetTime = text(base + 21)
            e.sidecar = text(base + 22).flatMap(SidecarEvidence.init(encoded:))
            e.xmpRating = text(base + 23); e.exifRating = text(base + 24).flatMap { Int($0) }
            e.kinds = text(base + 25).map(KindEvidence.init(encoded:)) ?? KindEvidence()
            e.gpsLatitude = text(base + 26).flatMap { Double($0) }; e.gpsLongitude = text(base + 27).flatMap { Double($0) }
            let after = base + evidenceColumns.count
            e.hasExposureData = int(after) == 1
            e.orientation = int(after + 1).map(Int.init)
            e.pixelWidth = int(after + 2).map(Int.init)
            e.pixelHeight = int(after + 3).map(Int.init)
            e.problems = text(after + 4).map { $0.split(separator: "\n").map(String.init) } ?? []
            if let uid = int(after + 5), let gid = int(after + 6), let mode = int(after + 7) {
                e.access = FileAccess(uid: UInt32(truncatingIfNeeded: uid), gid: UInt32(truncatingIfNeeded: gid), mode: UInt32(truncatingIfNeeded: mode))
            }
            if let offset = int(after + 8), let length = int(after + 9) { e.motionVideo = ByteRange(offset: offset, length: length) }
            return IndexedFile(relativePath: path, identity: identity, kind: .photo(ImageFormat(rawValue: format) ?? .jpeg, e), changedWhenRead: changed)
        case nil: return IndexedFile(relativePath: path, identity: identity, kind: .ignored, changedWhenRead: changed)
        }
    }

    /// Folds the WAL into the index file (`SQLiteDatabase.foldWAL`), at unmount.
    public func foldWAL() throws(Errno) {
        try run { db in try db.foldWAL() }
    }

    /// Runs `body` with the connection, under the lock.
    @discardableResult
    func run<T>(_ body: (SQLiteDatabase) throws -> T) throws(Errno) -> T {
        try SQLiteDatabase.locked(connection) { try body($0.db) }
    }

    /// Runs `body` with the connection and what is known of its indexes, under the lock.
    func runWithState<T>(_ body: (inout Connection) throws -> T) throws(Errno) -> T {
        try SQLiteDatabase.locked(connection, body)
    }
}
