import AlbumSystem
import AlbumVFS
import CFuse3

extension Operations {
    /// `open`: read-only (EROFS for any write intent). One call of the filesystem answers it
    /// (`OpenedFile`: the handle and how the kernel caches the file); an original's open waits on
    /// the library's storage under the request's deadline (`RequestDeadline`: EIO past
    /// `-o source_timeout`, answered there).
    static func open(_ req: fuse_req_t?, _ ino: fuse_ino_t, _ fi: UnsafeMutablePointer<fuse_file_info>?) {
        let ctx = FuseContext.of(req)
        guard let opened = ctx.fs.open(UInt64(ino), flags: fi!.pointee.flags, caller: callerID(req),
                                       storage: RequestDeadline(ctx: ctx, req: req)) else { return }
        switch opened {
        case .success(let file):
            fi!.pointee.fh = file.handle
            switch file.cache {
            case .direct: fi!.pointee.direct_io = 1
            case .keep: fi!.pointee.keep_cache = 1
            }
            _ = fuse_reply_open(req, fi)
        case .failure(let e): Reply.error(req, e)
        }
    }

    /// `release`: closes the original.
    static func release(_ req: fuse_req_t?, _ ino: fuse_ino_t, _ fi: UnsafeMutablePointer<fuse_file_info>?) {
        FuseContext.of(req).fs.release(fi!.pointee.fh)
        Reply.ok(req)
    }
}

/// A request's deadline on the library's storage (`FuseContext.sourceCall`), under which the
/// filesystem runs what waits on the storage; used on the request's own thread.
struct RequestDeadline: StorageWait {
    let ctx: FuseContext
    let req: fuse_req_t?

    func run(_ work: () -> Result<OpenedFile, Errno>, late: (Result<OpenedFile, Errno>) -> Void) -> Result<OpenedFile, Errno>? {
        ctx.sourceCall(req, work, late: late)
    }
}
