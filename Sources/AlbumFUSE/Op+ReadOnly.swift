import AlbumCore
import CFuse3
import Glibc

/// Every operation that would change the tree answers EROFS, from here and nowhere else, rather
/// than being left NULL (which the kernel reports as ENOSYS or, worse, "not supported").
extension Operations {
    static func refuse(_ req: fuse_req_t?) { Reply.error(req, .readOnlyFileSystem) }

    static func installReadOnly(_ ops: inout fuse_lowlevel_ops) {
        ops.setattr = { req, _, _, _, _ in Operations.refuse(req) }
        ops.mknod = { req, _, _, _, _ in Operations.refuse(req) }
        ops.mkdir = { req, _, _, _ in Operations.refuse(req) }
        ops.unlink = { req, _, _ in Operations.refuse(req) }
        ops.rmdir = { req, _, _ in Operations.refuse(req) }
        ops.symlink = { req, _, _, _ in Operations.refuse(req) }
        ops.rename = { req, _, _, _, _, _ in Operations.refuse(req) }
        ops.link = { req, _, _, _ in Operations.refuse(req) }
        ops.write = { req, _, _, _, _, _ in Operations.refuse(req) }
        ops.create = { req, _, _, _, _ in Operations.refuse(req) }
        ops.setxattr = { req, _, _, _, _, _ in Operations.refuse(req) }
        ops.removexattr = { req, _, _ in Operations.refuse(req) }
        ops.fallocate = { req, _, _, _, _, _ in Operations.refuse(req) }
    }
}
