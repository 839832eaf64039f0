import AlbumCore
import AlbumSystem
import Glibc

/// An open, read-only source file. Owns its descriptor and closes it in `deinit`.
///
/// The corresponding C functions are `open`, `pread` and `close`; `EINTR` is retried here.
public final class SourceFile {
    public let fd: Int32

    /// Opens `path` beneath `rootFD` (the library's folder) as albumfs opens the library's files
    /// for its own reads (`SourceOpening`: no symlink followed at any level, no FIFO waited on, no
    /// access time written).
    public init(path: String, in rootFD: Int32) throws(Errno) {
        fd = try SourceOpening.readOnly(path, relativeTo: rootFD)
    }

    /// Opens the file at the absolute `path`, its folder taken as the library's (through links:
    /// the folder as named), the file itself not through one.
    public convenience init(path: String) throws(Errno) {
        let name = String(path.nameAfterLastSlash)
        let folder = path.folderBeforeLastSlash
        let rootFD = try SourceOpening.root(folder.isEmpty ? "." : folder)
        defer { close(rootFD) }
        try self.init(path: name, in: rootFD)
    }

    deinit { close(fd) }

    /// `fstat` of the open file.
    public func status() throws(Errno) -> stat {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Errno.current }
        return st
    }

    /// Turns the kernel's readahead off for this open file (`POSIX_FADV_RANDOM`; other opens of
    /// the file keep theirs). A header read of a big file is 64 KiB; readahead makes each one
    /// read four times that from the disk. Best effort: a filesystem that ignores the advice
    /// reads ahead as usual.
    public func readsOnlyWhatIsAsked() {
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM)
    }

    /// Reads up to `count` bytes at `offset`; fewer only at end of file.
    public func read(at offset: Int64, count: Int) throws(Errno) -> [UInt8] {
        try PositionalRead.bytes(fd, count: count, at: offset).get()
    }
}
