import AlbumCore
import AlbumSystem
import AlbumVFS
import CFuse3
import Glibc

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
    /// Where requests that may take long (a thumbnail's render, a pick's hash) are answered: a
    /// few threads of their own, so that however many come at once the loop's threads stay free.
    let slowWork: SlowWork

    public init(fs: AlbumFileSystem, entryTimeout: Double = 60, attrTimeout: Double = 60, maxRead: UInt32 = 0,
                slowThreads: Int = max(2, sysconf(Int32(_SC_NPROCESSORS_ONLN)))) {
        self.fs = fs
        slowWork = SlowWork(width: slowThreads)
        self.entryTimeout = entryTimeout
        self.attrTimeout = attrTimeout
        self.maxRead = maxRead
    }

    /// Answers `req` later, on `slowWork` (libfuse lets any thread reply to a request).
    func later(_ req: fuse_req_t?, _ answer: @escaping @Sendable (fuse_req_t?) -> Void) {
        let pending = PendingRequest(req)
        slowWork.run { answer(pending.req) }
    }

    /// `fuse_req_userdata(req)` back to the context (passed unretained; the session outlives it).
    static func of(_ req: fuse_req_t?) -> FuseContext {
        Unmanaged<FuseContext>.fromOpaque(fuse_req_userdata(req)!).takeUnretainedValue()
    }
}

/// A request handed to another thread to answer. (`@unchecked Sendable`: libfuse allows a reply
/// from any thread, and exactly one thread holds it at a time.)
struct PendingRequest: @unchecked Sendable {
    let req: fuse_req_t?
    init(_ req: fuse_req_t?) { self.req = req }
}
