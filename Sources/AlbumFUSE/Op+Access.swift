import CFuse3
import Glibc

extension Operations {
    /// `access`: anything may be read or listed; nothing may be written.
    static func access(_ req: fuse_req_t?, _ ino: fuse_ino_t, _ mask: Int32) {
        let ctx = FuseContext.of(req)
        switch ctx.fs.attributes(of: UInt64(ino)) {
        case .failure(let e): Reply.error(req, e)
        case .success: mask & W_OK != 0 ? Reply.error(req, .readOnlyFileSystem) : Reply.ok(req)
        }
    }
}
