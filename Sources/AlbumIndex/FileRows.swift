import AlbumCore
import AlbumSystem

/// The `files` table: every regular file of the library with its identity and what its header
/// said (`IndexedFile`), and the lookups by identity that tell a file moved.
struct FileRows: Sendable {
    let connection: IndexConnection

    func loadAll() throws(Errno) -> [IndexedFile] {
        var files: [IndexedFile] = []
        try forEach { files.append($0) }
        return files
    }

    func forEach(_ body: (IndexedFile) -> Void) throws(Errno) {
        try connection.run { db in
            try db.prepared("SELECT \(FileRowCodec.columns.joined(separator: ", ")) FROM files") { statement throws(SQLiteDatabase.Failure) in
                try statement.run(binding: { _ in }) { body(FileRowCodec.decode($0)) }
            }
        }
    }

    func files(sameAs files: [(path: String, identity: FileIdentity)]) throws(Errno) -> [IndexedFile?] {
        var found = [IndexedFile?](repeating: nil, count: files.count)
        // Inode 0: numbers the filesystem makes up (docs/design.md), which name no file.
        let asked = files.indices.filter { files[$0].identity.inode != 0 && files[$0].identity.size >= 0 }
        guard !asked.isEmpty else { return found }
        try connection.runWithState { c in
            Self.prepareIdentityIndex(&c)
            guard c.identityIndexReady == true else { return }
            let db = c.db
            // One statement and one read transaction for them all: asked one by one, each would
            // parse its SQL and take SQLite's locks again.
            try db.execute("BEGIN")
            defer { try? db.execute("COMMIT") }
            let sql = "SELECT \(FileRowCodec.columns.joined(separator: ", ")) FROM files WHERE inode = ? AND size = ? AND mtime_ns = ? AND path <> ?"
            try db.prepared(sql) { statement throws(SQLiteDatabase.Failure) in
                for i in asked {
                    let (path, identity) = files[i]
                    try statement.run(binding: { (b: inout SQLiteDatabase.Binder) throws(SQLiteDatabase.Failure) in
                        try b.int(Int64(bitPattern: identity.inode))
                        try b.int(identity.size)
                        try b.int(IndexConnection.nanoseconds(identity.mtime))
                        try b.text(path)
                    }) { row in
                        guard found[i] == nil else { return }
                        let file = FileRowCodec.decode(row)
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
        case .photo:
            let readFailed = file.withPhotoEvidence { e in e.problems.contains(where: ReadFailure.isReadFailure) } ?? false
            return !readFailed && (sameName || file.changedWhenRead != nil)
        }
    }

    func save(upserts: [IndexedFile], removals: [String]) throws(Errno) {
        guard !upserts.isEmpty || !removals.isEmpty else { return }
        try connection.transaction(countingGeneration: true) { (db) throws(SQLiteDatabase.Failure) in
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
                        try b.int(IndexConnection.nanoseconds(file.identity.mtime))
                        try b.int(file.changedWhenRead.map(IndexConnection.nanoseconds))
                    })
                }
            }
            let columns = FileRowCodec.columns
            let sql = "INSERT OR REPLACE INTO files (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
            try db.prepared(sql) { statement throws(SQLiteDatabase.Failure) in
                for file in upserts { try statement.run(binding: { (b: inout SQLiteDatabase.Binder) throws(SQLiteDatabase.Failure) in try FileRowCodec.bind(file, &b) }) }
            }
        }
    }

    /// Copied by SQLite itself, row to row: a folder of 100,000 renamed was read into the mount
    /// whole (evidence and all) and written back whole, only to change each row's path.
    func save(moves: [FileMove]) throws(Errno) {
        guard !moves.isEmpty else { return }
        let columns = FileRowCodec.columns
        precondition(columns.first == "path")
        let sql = "INSERT OR REPLACE INTO files (\(columns.joined(separator: ", "))) SELECT ?, \(columns.dropFirst().joined(separator: ", ")) "
            + "FROM files WHERE path = ? AND inode = ? AND size = ? AND mtime_ns = ?"
        // A thumbnail failure follows its photo (same identity) to its new path.
        let failures = "UPDATE OR REPLACE thumbnail_failures SET path = ? WHERE path = ? AND inode = ? AND size = ? AND mtime_ns = ?"
        try connection.transaction(countingGeneration: true) { (db) throws(SQLiteDatabase.Failure) in
            for sql in [sql, failures] { try db.prepared(sql) { statement throws(SQLiteDatabase.Failure) in
                for move in moves {
                    try statement.run(binding: { (b: inout SQLiteDatabase.Binder) throws(SQLiteDatabase.Failure) in
                        try b.text(move.to)
                        try b.text(move.from)
                        try b.int(Int64(bitPattern: move.identity.inode))
                        try b.int(move.identity.size)
                        try b.int(IndexConnection.nanoseconds(move.identity.mtime))
                    })
                }
            } }
        }
    }

    /// Makes ready the index by inode that `files(sameAs:)` looks up.
    func prepareLookups() {
        _ = try? connection.runWithState { Self.prepareIdentityIndex(&$0) }
    }

    /// Makes the index by inode, once (under the lock). (Failing, on a full disk: no lookup, as if
    /// nothing were known; the files are read.)
    private static func prepareIdentityIndex(_ c: inout IndexConnection.State) {
        if c.identityIndexReady == nil {
            c.identityIndexReady = (try? c.db.execute("CREATE INDEX IF NOT EXISTS files_by_inode ON files (inode)")) != nil
        }
    }
}
