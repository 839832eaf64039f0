import AlbumCore
import AlbumSystem
import CFuse3

extension Operations {
    /// `lookup`: a name in a directory → entry (and one more kernel reference to the inode,
    /// which needs no bookkeeping: nodes live as long as the mount).
    static func lookup(_ req: fuse_req_t?, _ parent: fuse_ino_t, _ name: UnsafePointer<CChar>?) {
        let ctx = FuseContext.of(req)
        switch ctx.fs.lookup(parent: UInt64(parent), name: FileNameBytes.string(cString: name!)) {
        case .success(let a): Reply.entry(req, ctx, a)
        case .failure(let e): Reply.error(req, e)
        }
    }
}
