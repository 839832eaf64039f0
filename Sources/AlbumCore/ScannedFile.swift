import AlbumSystem
import Glibc

extension SourceOpening {
    /// The file a scan saw, opened beneath `root` for a read and checked to be that file still
    /// (`ScannedFile.matches`): anything else (replaced, rewritten, a link at any level, a FIFO) is ENOENT,
    /// since the file the views show is not there. `forUser`: a user's read of an original,
    /// which is an ordinary open (its access time written as for any read).
    public static func scanned(_ file: ScannedFile, beneath root: String, forUser: Bool = false) throws(Errno) -> OpenedSource {
        try withRoot(root) { rootFD throws(Errno) in
            let fd: Int32
            do throws(Errno) {
                fd = forUser ? try Self.forUser(file.relativePath, relativeTo: rootFD)
                             : try readOnly(file.relativePath, relativeTo: rootFD)
            } catch where error.rawValue == ELOOP || error.rawValue == ENOTDIR || error.rawValue == EXDEV {
                throw Errno.notFound  // a link, or a file, on the way: not the file scanned
            }
            var st = stat()
            guard fstat(fd, &st) == 0 else {
                let failure = Errno.current
                close(fd)
                throw failure
            }
            guard file.matches(st) else {
                close(fd)
                throw Errno.notFound
            }
            return OpenedSource(fd: fd, status: st)
        }
    }
}

/// A file of the library as the scan saw it: where it lies beneath SOURCE and what it was then.
public struct ScannedFile: Sendable, Hashable {
    public let relativePath: String
    public let identity: FileIdentity
    /// Its ctime when read (nil: not known, not checked).
    public let changedWhenRead: Timestamp?

    public init(relativePath: String, identity: FileIdentity, changedWhenRead: Timestamp?) {
        self.relativePath = relativePath
        self.identity = identity
        self.changedWhenRead = changedWhenRead
    }

    public init(_ photo: Photo) {
        self.init(relativePath: photo.sourcePath, identity: photo.identity, changedWhenRead: photo.changedWhenRead)
    }

    /// Whether an open file is this one: a regular file with the inode (where the filesystem's
    /// numbers are real: `identity.inode` is 0 otherwise), size, mtime and ctime scanned. A
    /// rewrite in place that restores size and mtime still moves the ctime.
    public func matches(_ st: stat) -> Bool {
        guard st.st_mode & S_IFMT == S_IFREG else { return false }
        if identity.inode != 0 && UInt64(st.st_ino) != identity.inode { return false }
        guard Int64(st.st_size) == identity.size, Timestamp(st.st_mtim) == identity.mtime else { return false }
        if let changedWhenRead, Timestamp(st.st_ctim) != changedWhenRead { return false }
        return true
    }
}
