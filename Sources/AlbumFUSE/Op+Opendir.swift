import CFuse3

extension Operations {
    /// `opendir`: the listing is fixed here, into a handle.
    static func opendir(_ req: fuse_req_t?, _ ino: fuse_ino_t, _ fi: UnsafeMutablePointer<fuse_file_info>?) {
        let ctx = FuseContext.of(req)
        switch ctx.fs.openDirectory(UInt64(ino), caller: callerID(req)) {
        case .success(let handle):
            fi!.pointee.fh = handle
            // The listing of an immutable snapshot may be cached by the kernel, and kept from one
            // `opendir` to the next (without `keep_cache` the kernel drops it at every open);
            // `picked/` may not. A new tree invalidates what changed (`TreeChanges`).
            let fixed: UInt32 = ctx.fs.isStaticDirectory(UInt64(ino)) ? 1 : 0
            fi!.pointee.cache_readdir = fixed
            fi!.pointee.keep_cache = fixed
            _ = fuse_reply_open(req, fi)
        case .failure(let e): Reply.error(req, e)
        }
    }

    /// `releasedir`.
    static func releasedir(_ req: fuse_req_t?, _ ino: fuse_ino_t, _ fi: UnsafeMutablePointer<fuse_file_info>?) {
        let ctx = FuseContext.of(req)
        ctx.listingAhead.forget(fi!.pointee.fh)
        ctx.fs.releaseDirectory(fi!.pointee.fh)
        Reply.ok(req)
    }
}
