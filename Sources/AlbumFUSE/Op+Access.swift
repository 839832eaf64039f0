import CFuse3

extension Operations {
    /// `access`: the permission bits decide (AlbumFileSystem.checkAccess).
    static func access(_ req: fuse_req_t?, _ ino: fuse_ino_t, _ mask: Int32) {
        switch FuseContext.of(req).fs.checkAccess(UInt64(ino), mask: mask) {
        case .failure(let e): Reply.error(req, e)
        case .success: Reply.ok(req)
        }
    }
}
