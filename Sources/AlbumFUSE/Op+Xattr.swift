import AlbumCore
import CFuse3

extension Operations {
    /// `getxattr`: size 0 asks for the length; a too-small buffer is ERANGE.
    static func getxattr(_ req: fuse_req_t?, _ ino: fuse_ino_t, _ name: UnsafePointer<CChar>?, _ size: Int) {
        let ctx = FuseContext.of(req)
        switch ctx.fs.extendedAttribute(UInt64(ino), name: String(cString: name!)) {
        case .success(let value): replyXattr(req, value, size)
        case .failure(let e): Reply.error(req, e)
        }
    }

    /// `listxattr`: NUL-separated names.
    static func listxattr(_ req: fuse_req_t?, _ ino: fuse_ino_t, _ size: Int) {
        let ctx = FuseContext.of(req)
        switch ctx.fs.extendedAttributeNames(UInt64(ino)) {
        case .success(let names): replyXattr(req, names.flatMap { Array($0.utf8) + [0] }, size)
        case .failure(let e): Reply.error(req, e)
        }
    }

    private static func replyXattr(_ req: fuse_req_t?, _ value: [UInt8], _ size: Int) {
        if size == 0 {
            _ = fuse_reply_xattr(req, value.count)
        } else if size < value.count {
            Reply.error(req, .range)
        } else {
            _ = value.withUnsafeBytes { fuse_reply_buf(req, $0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count) }
        }
    }
}
