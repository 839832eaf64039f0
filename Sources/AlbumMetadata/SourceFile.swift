import AlbumCore
import Glibc

/// An open, read-only source file. Owns its descriptor and closes it in `deinit`.
///
/// The corresponding C functions are `open`, `pread` and `close`; `EINTR` is retried here.
public final class SourceFile {
    public let fd: Int32

    /// Opens `path` read-only, never following a final symlink out of the library by accident
    /// (the scanner resolves links itself) and never blocking on a FIFO.
    public init(path: String) throws(Errno) {
        var fd: Int32
        repeat { fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw Errno.current }
        self.fd = fd
    }

    /// Opens a file below an open folder (`openat`), with the same flags.
    public init(relativePath: String, in folderFD: Int32) throws(Errno) {
        var fd: Int32
        repeat { fd = openat(folderFD, relativePath, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw Errno.current }
        self.fd = fd
    }

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
