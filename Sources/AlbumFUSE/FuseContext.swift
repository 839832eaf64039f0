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
    /// Where requests that may take long (a thumbnail's render, a pick's hash) are answered, as
    /// `.interactive` jobs: threads of their own, so that however many come at once the loop's
    /// threads stay free; renders made ahead of a reader share them as `.ahead` jobs.
    let requests: WorkerPool
    /// Requests that wait on the library's storage, answered EIO past `-o source_timeout`.
    let deadlines: SourceDeadlines
    /// True while a request that waited on the library's storage was answered EIO at its
    /// deadline and the storage has not answered it since (`-o source_timeout`): a server that
    /// stopped answering. The views still answer from what the index holds.
    public var isSourceStalled: Bool { deadlines.isStalled }
    /// The next `readdir` reply of open listings, made before it is asked for: 16 at most at
    /// once, each at most a request's size (1 MiB), whatever a client opens.
    let listingPrefetch = ReaddirPrefetch<UInt64, ListingRequest, ListingReply>(label: "albumfs.listing-ahead", slots: 16)

    /// - Parameter sourceTimeout: seconds a request may wait on the library's storage (0: for ever).
    /// - Parameter requests: the pool slow requests are answered on (`requestPool`'s by default).
    public init(fs: AlbumFileSystem, entryTimeout: Double = 60, attrTimeout: Double = 60, maxRead: UInt32 = 0,
                sourceTimeout: Double = 0, requests: WorkerPool = FuseContext.requestPool(ahead: 0)) {
        self.fs = fs
        self.requests = requests
        deadlines = SourceDeadlines(timeout: sourceTimeout) { [fs] stalled, change in
            fs.sourceStallChanged(stalled, change: change, seconds: sourceTimeout)
        }
        self.entryTimeout = entryTimeout
        self.attrTimeout = attrTimeout
        self.maxRead = maxRead
    }

    /// The pool of slow requests: one thread per core (at least 2) for the requests, and `ahead`
    /// more for renders made ahead of a reader, which run on `ahead` threads at most, so they
    /// never hold a thread a request needs.
    public static func requestPool(ahead: Int) -> WorkerPool {
        let cores = max(2, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        return WorkerPool(name: "albumfs-request", width: cores + max(0, ahead), aheadWidth: max(0, ahead), idleSeconds: nil)
    }

    /// Answers `req` later, on `requests` (libfuse lets any thread reply to a request).
    func later(_ req: fuse_req_t?, _ answer: @escaping @Sendable (fuse_req_t?) -> Void) {
        let pending = PendingRequest(req)
        requests.submit(.interactive) { answer(pending.req) }
    }

    /// Runs `work`, which waits on the library's storage, on this thread, for `req`: nil when
    /// `req` was answered EIO instead, the storage being stalled already or not answering within
    /// `-o source_timeout` (what `work` made then goes to `late`, to be let go).
    func sourceCall<T>(_ req: fuse_req_t?, _ work: () -> T, late: (T) -> Void = { _ in }) -> T? {
        guard let ticket = deadlines.start(req) else {
            Reply.error(req, .ioError)
            return nil
        }
        let made = work()
        guard deadlines.finish(ticket) else {
            late(made)
            return nil
        }
        return made
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
