import AlbumCore
import AlbumSystem

/// Content hashes kept between mounts for `duplicates/` (`ContentHashStore`): a remount and a
/// rescan hash only the files that are new or changed.
struct ContentHashRows: ContentHashStore {
    let connection: IndexConnection

    func contentHashes() throws(Errno) -> [ContentHashRecord] {
        try connection.run { db in
            try db.query("SELECT path, inode, size, mtime_ns, ctime_ns, partial, full FROM content_hashes").map { r in
                ContentHashRecord(relativePath: r[0].text,
                                  identity: FileIdentity(inode: UInt64(bitPattern: r[1].int), size: r[2].int, mtime: IndexConnection.time(r[3].int)),
                                  changedWhenRead: r[4] == nil ? nil : IndexConnection.time(r[4].int), partial: UInt64(bitPattern: r[5].int),
                                  full: r[6] == nil ? nil : r[6].text)
            }
        }
    }

    /// (Not counted as a write of the index's files: a views snapshot stays valid, since the
    /// groups it shows come from these rows' files, whose own rows say whether they changed.)
    func saveContentHashes(_ records: [ContentHashRecord], removing removals: [String]) throws(Errno) {
        guard !records.isEmpty || !removals.isEmpty else { return }
        try connection.transaction(countingGeneration: false) { (db) throws(SQLiteDatabase.Failure) in
            for path in removals { try db.query("DELETE FROM content_hashes WHERE path = ?", [.text(path)]) }
            try db.prepared("INSERT OR REPLACE INTO content_hashes (path, inode, size, mtime_ns, ctime_ns, partial, full) VALUES (?, ?, ?, ?, ?, ?, ?)") {
                statement throws(SQLiteDatabase.Failure) in
                for r in records {
                    try statement.run([.text(r.relativePath), .int(Int64(bitPattern: r.identity.inode)), .int(r.identity.size),
                                       .int(IndexConnection.nanoseconds(r.identity.mtime)), r.changedWhenRead.map { .int(IndexConnection.nanoseconds($0)) },
                                       .int(Int64(bitPattern: r.partial)), r.full.map { .text($0) }])
                }
            }
        }
    }
}
