import AlbumCore
import AlbumSystem

/// Perceptual hashes kept between mounts for `duplicates/similar/` (`SimilarHashStore`): a
/// remount hashes no file, a rescan only those new or changed.
extension LibraryIndex: SimilarHashStore {
    public func similarHashes() throws(Errno) -> [SimilarHashRecord] { try similarHashes(where: "") }

    public func groupedSimilarHashes() throws(Errno) -> [SimilarHashRecord] { try similarHashes(where: " WHERE grp > 0") }

    private func similarHashes(where condition: String) throws(Errno) -> [SimilarHashRecord] {
        try run { db in
            try db.query("SELECT path, inode, size, mtime_ns, ctime_ns, hash, grp FROM similar_hashes" + condition).map { r in
                SimilarHashRecord(relativePath: r[0].text,
                                  identity: FileIdentity(inode: UInt64(bitPattern: r[1].int), size: r[2].int, mtime: Self.time(r[3].int)),
                                  changedWhenRead: r[4] == nil ? nil : Self.time(r[4].int),
                                  hash: r[5] == nil ? nil : UInt64(bitPattern: r[5].int), group: r[6] == nil ? nil : UInt32(truncatingIfNeeded: r[6].int))
            }
        }
    }

    /// (Not counted as a write of the index's files, as content hashes are not.)
    public func saveSimilarHashes(_ records: [SimilarHashRecord], removing removals: [String]) throws(Errno) {
        guard !records.isEmpty || !removals.isEmpty else { return }
        try run { db in
            try db.execute("BEGIN IMMEDIATE")
            do {
                for path in removals { try db.query("DELETE FROM similar_hashes WHERE path = ?", [.text(path)]) }
                try db.prepared("INSERT OR REPLACE INTO similar_hashes (path, inode, size, mtime_ns, ctime_ns, hash, grp) VALUES (?, ?, ?, ?, ?, ?, ?)") {
                    statement throws(SQLiteDatabase.Failure) in
                    for r in records {
                        try statement.run([.text(r.relativePath), .int(Int64(bitPattern: r.identity.inode)), .int(r.identity.size),
                                           .int(Self.nanoseconds(r.identity.mtime)), r.changedWhenRead.map { .int(Self.nanoseconds($0)) },
                                           r.hash.map { .int(Int64(bitPattern: $0)) }, r.group.map { .int(Int64($0)) }])
                    }
                }
                try db.execute("COMMIT")
            } catch {
                try? db.execute("ROLLBACK")
                throw error
            }
        }
    }
}
