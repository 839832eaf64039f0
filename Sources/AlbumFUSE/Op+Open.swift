import AlbumSystem
import CFuse3

extension Operations {
    /// `open`: originals only, read-only (EROFS for any write intent).
    static func open(_ req: fuse_req_t?, _ ino: fuse_ino_t, _ fi: UnsafeMutablePointer<fuse_file_info>?) {
        let ctx = FuseContext.of(req)
        let (inode, flags) = (UInt64(ino), fi!.pointee.flags)
        let opened: Result<UInt64, Errno>
        if ctx.fs.opensSource(inode) {
            // An original's open waits on the library's storage: EIO past `-o source_timeout`.
            guard let made = ctx.sourceCall(req, { ctx.fs.open(inode, flags: flags, caller: callerID(req)) },
                                            late: { if case .success(let handle) = $0 { ctx.fs.release(handle) } }) else { return }
            opened = made
        } else {
            opened = ctx.fs.open(inode, flags: flags, caller: callerID(req))
        }
        switch opened {
        case .success(let handle):
            fi!.pointee.fh = handle
            if ctx.fs.needsDirectIO(UInt64(ino)) {
                fi!.pointee.direct_io = 1
            } else {
                // Originals and thumbnails do not change under a snapshot: let the kernel keep pages.
                fi!.pointee.keep_cache = 1
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
