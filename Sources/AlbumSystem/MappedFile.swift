import Glibc

/// A file's bytes mapped read-only: the one `mmap` of albumfs (a views snapshot, read once at
/// mount). The descriptor is closed once mapped; the mapping goes with the value.
public final class MappedFile {
    public let bytes: UnsafeRawBufferPointer

    /// Maps `path` (no link followed), or says why not. An empty file maps to no bytes.
    public init(path: String) throws(Errno) {
        let fd = Errno.retryingInterrupts { open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
        guard fd >= 0 else { throw Errno.current }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Errno.current }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw Errno(rawValue: EINVAL) }
        guard st.st_size > 0 else {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        let address = mmap(nil, Int(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0)
        guard let address, address != MAP_FAILED else { throw Errno.current }
        bytes = UnsafeRawBufferPointer(start: address, count: Int(st.st_size))
    }

    deinit {
        if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
    }
}
