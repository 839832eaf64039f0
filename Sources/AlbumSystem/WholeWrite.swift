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
}
