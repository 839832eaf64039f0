import CFuse3

extension Operations {
    /// `open`: originals only, read-only (EROFS for any write intent).
    static func open(_ req: fuse_req_t?, _ ino: fuse_ino_t, _ fi: UnsafeMutablePointer<fuse_file_info>?) {
        let ctx = FuseContext.of(req)
        switch ctx.fs.open(UInt64(ino), flags: fi!.pointee.flags) {
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
