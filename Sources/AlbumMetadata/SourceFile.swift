import AlbumCore
import Glibc

/// An open, read-only source file. Owns its descriptor and closes it in `deinit`.
///
/// The corresponding C functions are `open`, `pread` and `close`; `EINTR` is retried here.
public final class SourceFile {
    public let fd: Int32

    /// Opens `path` (relative to `folderFD` when given, as `openat` does) read-only:
    /// - never following a final symlink (ELOOP): the walk skips links, so a link put where it saw
    ///   a regular file is not the library's;
    /// - never blocking on a FIFO;
    /// - with O_NOATIME when allowed: scanning a library never writes its files' access times
    ///   (with relatime, the first read of a photo would), like `tar --atime-preserve`. Only the
    ///   owner (or root) may ask for it; anyone else gets EPERM and the file opens without it.
    public init(path: String, in folderFD: Int32 = AT_FDCWD) throws(Errno) {
        let flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW
        var fd: Int32
        repeat { fd = openat(folderFD, path, flags | Self.noAtime) } while fd < 0 && errno == EINTR
        if fd < 0 && errno == EPERM {
            repeat { fd = openat(folderFD, path, flags) } while fd < 0 && errno == EINTR
        }
        guard fd >= 0 else { throw Errno.current }
        self.fd = fd
    }

    /// `O_NOATIME` (glibc defines it only under _GNU_SOURCE, which Swift's Glibc module does not
    /// set): 01000000 on x86-64 and arm64, the architectures Debian builds albumfs for.
    static let noAtime: Int32 = 0o1000000

    deinit { close(fd) }

    /// `fstat` of the open file.
    public func status() throws(Errno) -> stat {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Errno.current }
        return st
    }

    /// Reads up to `count` bytes at `offset`; fewer only at end of file.
    public func read(at offset: Int64, count: Int) throws(Errno) -> [UInt8] {
        guard count > 0 else { return [] }
        var failure: Errno?
        // Uninitialised: zero-filling 64 KiB per file was 4% of a scan's CPU time.
        let buffer = [UInt8](unsafeUninitializedCapacity: count) { raw, initialized in
            var filled = 0
            while filled < count {
                let n = pread(fd, raw.baseAddress! + filled, count - filled, off_t(offset) + off_t(filled))
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = Errno.current
                    break
                }
                if n == 0 { break }
                filled += n
            }
            initialized = filled
        }
        if let failure { throw failure }
        return buffer
    }
}
