import CSysOpen
import Glibc

/// How albumfs opens a library's file, for its own reads (a scan, a thumbnail render, a pick's
/// content hash) and for a user's read of an original through the mount:
/// - beneath the library's own folder, never following a symbolic link at any level and never
///   leaving that folder (`albumfs_open_beneath`: `openat2` with RESOLVE_BENEATH |
///   RESOLVE_NO_SYMLINKS): SOURCE may be written by other users while mounted, and a link put in
///   place of a file or a folder would lead a root daemon anywhere (docs/security.md);
/// - read-only, never blocking on a FIFO put in a file's place;
/// - for albumfs's own reads, with O_NOATIME when allowed: they never write the source's access
///   times (with relatime, the first read of a photo would), like `tar --atime-preserve`. Only
///   the owner (or root) may ask for it; anyone else gets EPERM and the file opens without it.
/// `EINTR` is retried.
public enum SourceOpening {
    /// A file beneath `rootFD` (the library's folder, open), opened for albumfs's own reads; the
    /// caller closes the descriptor.
    public static func readOnly(_ relativePath: String, relativeTo rootFD: Int32) throws(Errno) -> Int32 {
        try beneath(rootFD, relativePath, flags: fileFlags | noAtime, withoutNoAtime: fileFlags)
    }

    /// A subfolder beneath `rootFD`, open for listing the same way (with relatime, listing a
    /// folder writes its access time too).
    public static func folder(_ relativePath: String, relativeTo rootFD: Int32) throws(Errno) -> Int32 {
        try beneath(rootFD, relativePath, flags: folderFlags | noAtime, withoutNoAtime: folderFlags)
    }

    /// The library's own folder, as the user named it: through links (SOURCE may be one).
    public static func root(_ path: String) throws(Errno) -> Int32 {
        var fd = Errno.retryingInterrupts { openat(AT_FDCWD, path, folderFlags | noAtime) }
        if fd < 0 && errno == EPERM {
            fd = Errno.retryingInterrupts { openat(AT_FDCWD, path, folderFlags) }
        }
        guard fd >= 0 else { throw Errno.current }
        return fd
    }

    /// Runs `body` with the library's folder `root` open (closed after).
    public static func withRoot<T>(_ root: String, _ body: (Int32) throws(Errno) -> T) throws(Errno) -> T {
        let rootFD = try Self.root(root)
        defer { close(rootFD) }
        return try body(rootFD)
    }

    /// The file a scan saw, opened beneath `root` for a read and checked to be that file still
    /// (`ScannedFile.matches`): anything else (replaced, rewritten, a link at any level, a FIFO) is ENOENT,
    /// since the file the views show is not there. `forUser`: a user's read of an original,
    /// which is an ordinary open (its access time written as for any read).
    public static func scanned(_ file: ScannedFile, beneath root: String, forUser: Bool = false) throws(Errno) -> OpenedSource {
        try withRoot(root) { rootFD throws(Errno) in
            let fd: Int32
            do throws(Errno) {
                fd = forUser ? try beneath(rootFD, file.relativePath, flags: fileFlags, withoutNoAtime: fileFlags)
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

    private static func beneath(_ rootFD: Int32, _ path: String, flags: Int32, withoutNoAtime: Int32) throws(Errno) -> Int32 {
        var fd = FileNameBytes.withCString(path) { albumfs_open_beneath(rootFD, $0, flags) }
        if fd < 0 && errno == EPERM && flags != withoutNoAtime {
            fd = FileNameBytes.withCString(path) { albumfs_open_beneath(rootFD, $0, withoutNoAtime) }
        }
        guard fd >= 0 else { throw Errno.current }
        return fd
    }

    static let fileFlags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY
    static let folderFlags = O_RDONLY | O_CLOEXEC | O_DIRECTORY

    /// `O_NOATIME` (glibc defines it only under _GNU_SOURCE, which Swift's Glibc module does not
    /// set): 01000000 on x86-64 and arm64, the architectures Debian builds albumfs for.
    static let noAtime: Int32 = 0o1000000
}

/// A source file open for reading, and what `fstat` said of it. The caller closes `fd`.
public struct OpenedSource: Sendable {
    public let fd: Int32
    public let status: stat
    public var size: Int { Int(status.st_size) }
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
        self.init(relativePath: photo.relativePath, identity: photo.identity, changedWhenRead: photo.changedWhenRead)
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
