import AlbumSystem
import AlbumVFS
import CFuse3

extension Operations {
    /// `open`: read-only (EROFS for any write intent); the answer (`OpenedFile`) says how the
    /// kernel caches the file.
    static func open(_ req: fuse_req_t?, _ ino: fuse_ino_t, _ fi: UnsafeMutablePointer<fuse_file_info>?) {
        let ctx = FuseContext.of(req)
        let (inode, flags) = (UInt64(ino), fi!.pointee.flags)
        let opened: Result<OpenedFile, Errno>
        if ctx.fs.opensSource(inode) {
            // An original's open waits on the library's storage: EIO past `-o source_timeout`.
            guard let made = ctx.sourceCall(req, { ctx.fs.open(inode, flags: flags, caller: callerID(req)) },
                                            late: { if case .success(let file) = $0 { ctx.fs.release(file.handle) } }) else { return }
            opened = made
        } else {
            opened = ctx.fs.open(inode, flags: flags, caller: callerID(req))
        }
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
