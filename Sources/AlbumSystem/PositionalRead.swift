import Glibc

/// Reading a part of an open file at an offset, whole: the one `pread` loop of albumfs (the scan's
/// header reads, a user's read of an original through the mount, a thumbnail's read of its
/// original). The corresponding C function is `pread`; `EINTR` is retried here.
public enum PositionalRead {
    /// `pread` until `count` bytes are read or the file ends: the bytes read, and the error that
    /// stopped it early, if one did.
    public static func fill(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64) -> (filled: Int, error: Errno?) {
        var filled = 0
        while filled < count {
            let n = Errno.retryingInterrupts { pread(fd, buffer + filled, count - filled, off_t(offset) + off_t(filled)) }
            if n < 0 { return (filled, Errno.current) }
            if n == 0 { break }
            filled += n
        }
        return (filled, nil)
    }

    /// Up to `count` bytes at `offset` (fewer only at the end of the file), or why not.
    public static func bytes(_ fd: Int32, count: Int, at offset: Int64) -> Result<[UInt8], Errno> {
        guard count > 0 else { return .success([]) }
        var failure: Errno?
        // Uninitialised: zero-filling 64 KiB per file costs a scan CPU time for nothing.
        let buffer = [UInt8](unsafeUninitializedCapacity: count) { raw, initialized in
            let (filled, error) = fill(fd, into: raw.baseAddress!, count: count, at: offset)
            initialized = filled
            failure = error
        }
        if let failure { return .failure(failure) }
        return .success(buffer)
    }
}
