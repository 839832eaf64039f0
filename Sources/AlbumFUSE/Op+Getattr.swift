import CFuse3

extension Operations {
    /// `getattr`.
    static func getattr(_ req: fuse_req_t?, _ ino: fuse_ino_t, _ fi: UnsafeMutablePointer<fuse_file_info>?) {
        let ctx = FuseContext.of(req)
        switch ctx.fs.attributes(of: UInt64(ino)) {
        case .success(let a): Reply.attr(req, ctx, a)
        case .failure(let e): Reply.error(req, e)
        }
    }
}
