import AlbumCore
import CFuse3
import Glibc

/// Every operation that would change the tree answers EROFS (EPERM for files made in `picked/`),
/// from here and nowhere else, rather
/// than being left NULL (which the kernel reports as ENOSYS or, worse, "not supported").
extension Operations {
    static func refuse(_ req: fuse_req_t?) { Reply.error(req, .readOnlyFileSystem) }

    static func installReadOnly(_ ops: inout fuse_lowlevel_ops) {
        ops.setattr = { req, _, _, _, _ in Operations.refuse(req) }
        ops.mknod = { req, parent, _, _, _ in Operations.refuseCreation(req, in: parent) }
        ops.mkdir = { req, parent, _, _ in Operations.refuseCreation(req, in: parent) }
        ops.rmdir = { req, _, _ in Operations.refuse(req) }
        ops.link = { req, _, newParent, _ in Operations.refuseCreation(req, in: newParent) }
        ops.write = { req, _, _, _, _, _ in Operations.refuse(req) }
        ops.create = { req, parent, _, _, _ in Operations.refuseCreation(req, in: parent) }
        ops.setxattr = { req, _, _, _, _, _ in Operations.refuse(req) }
        ops.removexattr = { req, _, _ in Operations.refuse(req) }
        ops.fallocate = { req, _, _, _, _, _ in Operations.refuse(req) }
    }
}
