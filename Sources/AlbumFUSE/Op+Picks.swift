import AlbumCore
import AlbumSystem
import CFuse3

/// The operations that change `picked/` (and answer EROFS or EPERM everywhere else).
extension Operations {
    /// `readlink`.
    static func readlink(_ req: fuse_req_t?, _ ino: fuse_ino_t) {
        switch FuseContext.of(req).fs.readlink(UInt64(ino)) {
        case .success(let target): _ = FileNameBytes.withCString(target) { fuse_reply_readlink(req, $0) }
        case .failure(let e): Reply.error(req, e)
        }
    }

    /// `symlink`: `ln -s TARGET picked/NAME`.
    static func symlink(_ req: fuse_req_t?, _ link: UnsafePointer<CChar>?, _ parent: fuse_ino_t, _ name: UnsafePointer<CChar>?) {
        let ctx = FuseContext.of(req)
        let (name, target, caller) = (FileNameBytes.string(cString: name!), FileNameBytes.string(cString: link!), callerID(req))
        // (Its photo's bytes are hashed: on the slow-work threads. No deadline: hashing a long
        // video from a network share may rightly take longer than `-o source_timeout`.)
        ctx.later(req) { req in
            switch ctx.fs.symlink(parent: UInt64(parent), name: name, target: target, caller: caller) {
            case .success(let a): Reply.entry(req, ctx, a)
            case .failure(let e): Reply.error(req, e)
            }
        }
    }

    /// `unlink`: `rm picked/NAME`.
    static func unlink(_ req: fuse_req_t?, _ parent: fuse_ino_t, _ name: UnsafePointer<CChar>?) {
        switch FuseContext.of(req).fs.unlink(parent: UInt64(parent), name: FileNameBytes.string(cString: name!), caller: callerID(req)) {
        case .success: Reply.ok(req)
        case .failure(let e): Reply.error(req, e)
        }
    }

    /// `rename`: `mv picked/A picked/B`.
    static func rename(_ req: fuse_req_t?, _ parent: fuse_ino_t, _ name: UnsafePointer<CChar>?, _ newParent: fuse_ino_t,
                       _ newName: UnsafePointer<CChar>?, _ flags: UInt32) {
        let result = FuseContext.of(req).fs.rename(parent: UInt64(parent), name: FileNameBytes.string(cString: name!),
                                                   newParent: UInt64(newParent), newName: FileNameBytes.string(cString: newName!), flags: flags,
                                                   caller: callerID(req))
        switch result {
        case .success: Reply.ok(req)
        case .failure(let e): Reply.error(req, e)
        }
    }

    /// The user making the request (`fuse_req_ctx`).
    static func callerID(_ req: fuse_req_t?) -> UInt32 { fuse_req_ctx(req).map { UInt32($0.pointee.uid) } ?? UInt32.max }

    /// `mknod`, `mkdir`, `create`, `link`: never allowed; EPERM in `picked/`, EROFS elsewhere.
    static func refuseCreation(_ req: fuse_req_t?, in parent: fuse_ino_t) {
        Reply.error(req, FuseContext.of(req).fs.creationError(in: UInt64(parent)))
    }
}
