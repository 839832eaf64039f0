import Glibc

/// How albumfs opens a library's file to read it on its own behalf (a scan, a thumbnail render, a
/// pick's content hash), never for a user's read of the original through the mount:
/// - read-only, never following a final symlink (ELOOP): the walk skips links, so a link put
///   where it saw a regular file is not the library's;
/// - never blocking on a FIFO put in a file's place;
/// - with O_NOATIME when allowed: albumfs's own reads never write the source's access times
///   (with relatime, the first read of a photo would), like `tar --atime-preserve`. Only the
///   owner (or root) may ask for it; anyone else gets EPERM and the file opens without it.
/// `EINTR` is retried.
public enum SourceOpening {
    /// The open descriptor (the caller closes it); `path` is relative to `folderFD` when given,
    /// as with `openat`.
    public static func readOnly(_ path: String, relativeTo folderFD: Int32 = AT_FDCWD) throws(Errno) -> Int32 {
        try open(path, relativeTo: folderFD, flags: O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW)
    }

    /// A folder of the library, open for listing the same way (with relatime, listing a folder
    /// writes its access time too); through a link only when `followingLinks` (the library's own
    /// folder, as the user named it: a link put in place of a subfolder would lead out of it).
    public static func folder(_ path: String, followingLinks: Bool = false) throws(Errno) -> Int32 {
        try open(path, relativeTo: AT_FDCWD, flags: O_RDONLY | O_CLOEXEC | O_DIRECTORY | (followingLinks ? 0 : O_NOFOLLOW))
    }

    private static func open(_ path: String, relativeTo folderFD: Int32, flags: Int32) throws(Errno) -> Int32 {
        var fd: Int32
        repeat { fd = openat(folderFD, path, flags | noAtime) } while fd < 0 && errno == EINTR
        if fd < 0 && errno == EPERM {
            repeat { fd = openat(folderFD, path, flags) } while fd < 0 && errno == EINTR
        }
        guard fd >= 0 else { throw Errno.current }
        return fd
    }

    /// `O_NOATIME` (glibc defines it only under _GNU_SOURCE, which Swift's Glibc module does not
    /// set): 01000000 on x86-64 and arm64, the architectures Debian builds albumfs for.
    static let noAtime: Int32 = 0o1000000
}
