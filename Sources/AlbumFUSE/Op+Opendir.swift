import CFuse3

extension Operations {
    /// `opendir`: the listing is fixed here, into a handle. The answer may come later, from
    /// another thread (a folder whose desktop thumbnails are being written: the listing waits for
    /// them, bounded), so the reply is made from a copy of `fi`, not `fi` itself.
    static func opendir(_ req: fuse_req_t?, _ ino: fuse_ino_t, _ fi: UnsafeMutablePointer<fuse_file_info>?) {
        let ctx = FuseContext.of(req)
        let pending = PendingRequest(req)
        // The listing of an immutable snapshot may be cached by the kernel, and kept from one
        // `opendir` to the next (without `keep_cache` the kernel drops it at every open);
        // `picked/` may not. A new tree invalidates what changed (`TreeChanges`).
        let fixed: UInt32 = ctx.fs.isStaticDirectory(UInt64(ino)) ? 1 : 0
        let info = OpenInfo(fi!.pointee)
        ctx.fs.openDirectory(UInt64(ino), caller: callerID(req)) { result in
            switch result {
            case .success(let handle):
                var answer = info.value
                answer.fh = handle
                answer.cache_readdir = fixed
                answer.keep_cache = fixed
                _ = fuse_reply_open(pending.req, &answer)
            case .failure(let e): Reply.error(pending.req, e)
            }
        }
    }

    /// `releasedir`.
    static func releasedir(_ req: fuse_req_t?, _ ino: fuse_ino_t, _ fi: UnsafeMutablePointer<fuse_file_info>?) {
        let ctx = FuseContext.of(req)
        ctx.listingPrefetch.forget(fi!.pointee.fh)
        ctx.fs.releaseDirectory(fi!.pointee.fh)
        Reply.ok(req)
    }
}

/// A copy of an `opendir`'s `fuse_file_info`, handed to the thread that answers it.
/// (`@unchecked Sendable`: a C struct of plain values, copied, and read by one thread at a time.)
struct OpenInfo: @unchecked Sendable {
    let value: fuse_file_info
    init(_ value: fuse_file_info) { self.value = value }
}
