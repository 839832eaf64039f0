import AlbumCore
import FoundationEssentials
import Glibc

/// The index of a library that moved.
///
/// An index is named after its library's folder, so a library renamed or moved, or a disk
/// mounted at another path (udisks mounts at `/media/u/DISK1` when `/media/u/DISK` is taken),
/// would start with none and read every header again: minutes for a big library on a slow disk.
/// Before a new index is made, the indexes beside it are asked whether they hold this library's
/// files; one that does is copied and used.
public enum MovedLibraryIndex {
    /// Indexes asked at most, the most recently used first.
    static let candidates = 64
    /// Photos of a candidate looked for in the library: the first of each of its folders.
    static let sample = 32
    /// Photos of the sample allowed to be missing or changed (deleted or edited since).
    static let allowedMisses = 3

    /// Copies into `path` (which must not exist) the index beside it whose photos are found under
    /// `root` at the same paths with the same size and mtime, and the same inode where the
    /// filesystem's numbers are real (a copy of a library made with `cp -a` has other inodes: it
    /// is read as the new library it is). The original stays, for a library that goes back.
    /// Returns the index copied, or nil (none matched, or nothing could be copied: the caller
    /// makes a new index).
    public static func copy(to path: String, root: String) -> String? {
        let folder = path.folderBeforeLastSlash
        guard access(path, F_OK) != 0, errno == ENOENT else { return nil }
        for candidate in recentIndexes(in: folder, except: path) where holdsFiles(of: root, index: candidate) {
            if copy(candidate, to: path) { return candidate }
        }
        return nil
    }

    /// The `.sqlite` files in `folder`, newest first by their WAL's or their own mtime.
    static func recentIndexes(in folder: String, except path: String) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        func lastUse(_ file: String) -> Int64 {
            var st = stat()
            let wal = stat(file + "-wal", &st) == 0 ? Int64(st.st_mtim.tv_sec) : 0
            return max(wal, stat(file, &st) == 0 ? Int64(st.st_mtim.tv_sec) : 0)
        }
        return names.filter { $0.hasSuffix(".sqlite") }.map { folder + "/" + $0 }.filter { $0 != path }
            .map { ($0, lastUse($0)) }.sorted { $0.1 > $1.1 }.prefix(candidates).map(\.0)
    }

    /// Whether the index at `index` holds the photos under `root`: its sample of photos (rows of
    /// any image format: not `ignored`, not `problem`) all found there, but for `allowedMisses`. The sample is the first photo of each folder, in the
    /// order of its paths (one seek each), so a folder deleted or rewritten since costs one miss.
    static func holdsFiles(of root: String, index: String) -> Bool {
        do throws(SQLiteDatabase.Failure) {
            let db = try SQLiteDatabase(path: index, busyTimeoutMs: 200, create: false)
            guard case .int(IndexSchema.applicationID)?? = try db.query("PRAGMA application_id").first?.first else { return false }
            var found = 0, missed = 0
            var after = ""
            for _ in 0..<sample {
                guard let row = try db.query("SELECT path, inode, size, mtime_ns, ctime_ns FROM files WHERE path > ? AND kind NOT IN ('ignored', 'problem') ORDER BY path LIMIT 1",
                                             [.text(after)]).first else { break }
                let path = row[0].text
                let ctime: Int64? = if case .int(let ns)? = row[4] { ns } else { nil }
                if isThere(root + "/" + path, inode: row[1].int, size: row[2].int, mtimeNs: row[3].int, ctimeNs: ctime) {
                    found += 1
                } else {
                    missed += 1
                    if missed > allowedMisses { return false }
                }
                // On past this folder and those inside it (a path is compared byte by byte, and
                // no name holds a byte above U+10FFFF's first); at the top level, to the next file.
                let folder = path.folderBeforeLastSlash
                after = folder.isEmpty ? path : folder + "/\u{10FFFF}"
            }
            return found > 0
        } catch {
            return false
        }
    }

    /// Whether a regular file is at `path` with this size and mtime, this inode unless 0 (numbers
    /// the filesystem makes up: docs/design.md) and this ctime when one was kept (a folder renamed
    /// or a disk mounted elsewhere changes no file's ctime; a file made since, even on a reused
    /// inode, has another).
    static func isThere(_ path: String, inode: Int64, size: Int64, mtimeNs: Int64, ctimeNs: Int64?) -> Bool {
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return false }
        let mtime = Timestamp(st.st_mtim).nanosecondsSinceEpoch, ctime = Timestamp(st.st_ctim).nanosecondsSinceEpoch
        return Int64(st.st_size) == size && mtime == mtimeNs && (inode == 0 || UInt64(st.st_ino) == UInt64(bitPattern: inode))
            && (ctimeNs == nil || ctimeNs == ctime)
    }

    /// Copied (SQLite's online backup) to a file beside `path`, then linked to `path` (never over
    /// an index made there meanwhile). False, and nothing left behind, on any failure.
    static func copy(_ index: String, to path: String) -> Bool {
        let temporary = path + ".copying-\(getpid())"
        defer { for suffix in ["", "-journal", "-wal", "-shm"] { unlink(temporary + suffix) } }
        do throws(SQLiteDatabase.Failure) {
            let db = try SQLiteDatabase(path: index, busyTimeoutMs: 2000, create: false)
            try db.copy(to: temporary)
        } catch {
            return false
        }
        return link(temporary, path) == 0
    }
}
