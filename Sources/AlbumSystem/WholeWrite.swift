import Glibc

/// Writing bytes to a descriptor, whole: the one `write` loop of albumfs (log lines on stderr,
/// thumbnail cache files). The corresponding C function is `write`; `EINTR` is retried.
public enum WholeWrite {
    /// `write` until every byte is written: nil, or why not (a write that takes nothing is a
    /// full disk, `ENOSPC`).
    public static func write(_ fd: Int32, _ bytes: [UInt8]) -> Errno? {
        var off = 0
        while off < bytes.count {
            let n = Errno.retryingInterrupts { bytes[off...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } }
            if n < 0 { return Errno.current }
            if n == 0 { return Errno(rawValue: ENOSPC) }
            off += n
        }
        return nil
    }

    /// How the name of a file `replacing` is still writing begins (a folder's reader passes
    /// over such files; what a writer that died left can be told by it).
    public static let temporaryPrefix = ".tmp-"

    /// Writes `bytes` to a file of its own in `path`'s folder (mode 0600, no link followed) and
    /// renames it to `path`: a reader sees the old file or the whole new one, never a part. Nil,
    /// or why not (the temporary file removed). `path` is relative to the folder open as `folder`
    /// (a folder held open, so that its path is not looked up again), or to the current one.
    public static func replacing(_ path: String, in folder: Int32 = AT_FDCWD, with bytes: [UInt8]) -> Errno? {
        let dir = path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
        let temp = dir + temporaryPrefix + "\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        let fd = Errno.retryingInterrupts { openat(folder, temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600) }
        guard fd >= 0 else { return Errno.current }
        var failure = write(fd, bytes)
        if close(fd) != 0, failure == nil { failure = Errno.current }
        if failure == nil, renameat(folder, temp, folder, path) != 0 { failure = Errno.current }
        if failure != nil { unlinkat(folder, temp, 0) }
        return failure
    }
}
