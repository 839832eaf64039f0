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

    /// A file beneath `rootFD` opened as a user's read of it is: an ordinary open (its access
    /// time written as for any read), through no link.
    public static func forUser(_ relativePath: String, relativeTo rootFD: Int32) throws(Errno) -> Int32 {
        try beneath(rootFD, relativePath, flags: fileFlags, withoutNoAtime: fileFlags)
    }

    /// Checks that something is at `relativePath` beneath `rootFD`, reached through no link:
    /// throws ENOENT when nothing is, ELOOP when a link is on the way or is the entry itself (what
    /// the scan never follows). Opened `O_PATH`: nothing is read, no access time written, a FIFO
    /// does not block.
    public static func find(_ relativePath: String, relativeTo rootFD: Int32) throws(Errno) {
        let fd = FileNameBytes.withCString(relativePath) { albumfs_open_beneath(rootFD, $0, pathOnly | O_NOFOLLOW | O_CLOEXEC) }
        guard fd >= 0 else { throw Errno.current }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Errno.current }
        // (The walk without openat2 opens a link at the end itself, as O_PATH | O_NOFOLLOW does.)
        if st.st_mode & S_IFMT == S_IFLNK { throw Errno(rawValue: ELOOP) }
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
    /// `O_PATH` (also _GNU_SOURCE only): 010000000 on x86-64 and arm64.
    static let pathOnly: Int32 = 0o10000000
}

/// A source file open for reading, and what `fstat` said of it. The caller closes `fd`.
public struct OpenedSource: Sendable {
    public let fd: Int32
    public let status: stat
    public init(fd: Int32, status: stat) {
        self.fd = fd
        self.status = status
    }
    public var size: Int { Int(status.st_size) }
}
