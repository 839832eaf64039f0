import AlbumCore
import AlbumVFS
import CFuse3

/// What every FUSE callback reaches through the session's userdata: the filesystem and the
/// cache timeouts the kernel is told.
public final class FuseContext: Sendable {
    public let fs: AlbumFileSystem
    /// Seconds the kernel may cache names and attributes. The tree only changes through
    /// `update` (which invalidates), so long timeouts are safe and make `ls -l` near native.
    public let entryTimeout: Double
    public let attrTimeout: Double
    /// The largest read the kernel may ask for (`-o max_read`; 0: the kernel's own limit).
    public let maxRead: UInt32

    public init(fs: AlbumFileSystem, entryTimeout: Double = 60, attrTimeout: Double = 60, maxRead: UInt32 = 0) {
        self.fs = fs
        self.entryTimeout = entryTimeout
        self.attrTimeout = attrTimeout
        self.maxRead = maxRead
    }

    /// `fuse_req_userdata(req)` back to the context (passed unretained; the session outlives it).
    static func of(_ req: fuse_req_t?) -> FuseContext {
        Unmanaged<FuseContext>.fromOpaque(fuse_req_userdata(req)!).takeUnretainedValue()
    }
}
