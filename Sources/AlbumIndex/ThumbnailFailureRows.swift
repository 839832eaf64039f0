import AlbumCore
import AlbumSystem

/// Thumbnail failures kept between mounts (schema 15): a photo whose thumbnail cannot be made
/// from its content has none listed from the mount's start, not only after a read met it again.
public struct ThumbnailFailureRows: Sendable {
    let connection: IndexConnection

    /// The failures kept under `settings` (the render's limits and pipeline version: under
    /// others, such as a larger `-o thumbnail_memory`, the thumbnail is tried again), whatever
    /// their photo is now: the caller keeps those whose photo is still the same file.
    public func all(settings: String) throws(Errno) -> [RecordedThumbnailFailure] {
        try connection.run { db in
            try db.query("SELECT path, inode, size, mtime_ns, ctime_ns, reason FROM thumbnail_failures WHERE settings = ?",
                         [.text(settings)]).map { r in
                RecordedThumbnailFailure(relativePath: r[0].text,
                                         identity: FileIdentity(inode: UInt64(bitPattern: r[1].int), size: r[2].int, mtime: IndexConnection.time(r[3].int)),
                                         changedWhenRead: r[4] == nil ? nil : IndexConnection.time(r[4].int), reason: r[5].text)
            }
        }
    }

    /// Keeps `failure`, met under `settings`, replacing any other of its path.
    public func save(_ failure: RecordedThumbnailFailure, settings: String) throws(Errno) {
        try connection.run { db in
            try db.query("INSERT OR REPLACE INTO thumbnail_failures (path, inode, size, mtime_ns, ctime_ns, reason, settings) VALUES (?, ?, ?, ?, ?, ?, ?)",
                         [.text(failure.relativePath), .int(Int64(bitPattern: failure.identity.inode)), .int(failure.identity.size),
                          .int(IndexConnection.nanoseconds(failure.identity.mtime)), failure.changedWhenRead.map { .int(IndexConnection.nanoseconds($0)) },
                          .text(failure.reason), .text(settings)])
        }
    }
}
