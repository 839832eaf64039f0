import AlbumCore
import AlbumSystem

/// Perceptual hashes kept between mounts for `duplicates/similar/` (`SimilarHashStore`): a
/// remount hashes no file, a rescan only those new or changed.
struct SimilarHashRows: SimilarHashStore {
    let connection: IndexConnection

    func similarHashes() throws(Errno) -> [SimilarHashRecord] { try similarHashes(where: "") }

    func groupedSimilarHashes() throws(Errno) -> [SimilarHashRecord] { try similarHashes(where: " WHERE grp > 0") }

    /// Each row read in turn, never as an array of every row's values: a pass reads a million.
    func forEachSimilarHash(_ body: (SimilarHashRecord) -> Void) throws(Errno) { try similarHashes(where: "", body) }

    private func similarHashes(where condition: String) throws(Errno) -> [SimilarHashRecord] {
        var records: [SimilarHashRecord] = []
        try similarHashes(where: condition) { records.append($0) }
        return records
    }

    private func similarHashes(where condition: String, _ body: (SimilarHashRecord) -> Void) throws(Errno) {
        try connection.run { db in
            try db.prepared("SELECT path, inode, size, mtime_ns, ctime_ns, hash, grp FROM similar_hashes" + condition) {
                statement throws(SQLiteDatabase.Failure) in
                try statement.run(binding: { _ in }, each: { r in
                    body(SimilarHashRecord(relativePath: r.text(0) ?? "",
                                           identity: FileIdentity(inode: UInt64(bitPattern: r.int(1) ?? 0), size: r.int(2) ?? 0, mtime: IndexConnection.time(r.int(3) ?? 0)),
                                           changedWhenRead: r.int(4).map(IndexConnection.time), hash: r.int(5).map { UInt64(bitPattern: $0) },
                                           group: r.int(6).map { UInt32(truncatingIfNeeded: $0) }))
                })
            }
        }
    }

    /// (Not counted as a write of the index's files, as content hashes are not.)
    func saveSimilarHashes(_ records: [SimilarHashRecord], removing removals: [String]) throws(Errno) {
        guard !records.isEmpty || !removals.isEmpty else { return }
        try connection.transaction(countingGeneration: false) { (db) throws(SQLiteDatabase.Failure) in
            for path in removals { try db.query("DELETE FROM similar_hashes WHERE path = ?", [.text(path)]) }
            try db.prepared("INSERT OR REPLACE INTO similar_hashes (path, inode, size, mtime_ns, ctime_ns, hash, grp) VALUES (?, ?, ?, ?, ?, ?, ?)") {
                statement throws(SQLiteDatabase.Failure) in
                for r in records {
                    try statement.run([.text(r.relativePath), .int(Int64(bitPattern: r.identity.inode)), .int(r.identity.size),
                                       .int(IndexConnection.nanoseconds(r.identity.mtime)), r.changedWhenRead.map { .int(IndexConnection.nanoseconds($0)) },
                                       r.hash.map { .int(Int64(bitPattern: $0)) }, r.group.map { .int(Int64($0)) }])
                }
            }
        }
    }
}
