import AlbumCore
import AlbumSystem
import AlbumVFS
import CFuse3
import Glibc

/// The only place that answers the kernel with an errno: every failure of every operation
/// goes through `Reply.error`, so the errno table in docs/errno.md is this file's contract.
enum Reply {
    static func error(_ req: fuse_req_t?, _ e: Errno) {
        _ = fuse_reply_err(req, e.rawValue)
    }

    /// Success with no data (`fuse_reply_err(req, 0)` is libfuse's "ok").
    static func ok(_ req: fuse_req_t?) {
        _ = fuse_reply_err(req, 0)
    }

    static func entry(_ req: fuse_req_t?, _ ctx: FuseContext, _ a: Attributes) {
        var e = entryParam(ctx, a)
        _ = fuse_reply_entry(req, &e)
    }

    static func attr(_ req: fuse_req_t?, _ ctx: FuseContext, _ a: Attributes) {
        var st = stat(a)
        _ = fuse_reply_attr(req, &st, a.cacheable ? ctx.attrTimeout : 0)
    }

    static func entryParam(_ ctx: FuseContext, _ a: Attributes) -> fuse_entry_param {
        var e = fuse_entry_param()
        e.ino = fuse_ino_t(a.inode)
        e.generation = 1
        e.attr = stat(a)
        e.attr_timeout = a.cacheable ? ctx.attrTimeout : 0
        e.entry_timeout = a.cacheable ? ctx.entryTimeout : 0
        return e
    }

    /// The file type bits of a mode.
    static func fileType(_ kind: Attributes.Kind) -> mode_t {
        switch kind {
        case .directory: S_IFDIR
        case .regular: S_IFREG
        case .symlink: S_IFLNK
        }
    }

    /// POSIX attributes → `struct stat`.
    static func stat(_ a: Attributes) -> Glibc.stat {
        var st = Glibc.stat()
        st.st_ino = ino_t(a.inode)
        st.st_mode = mode_t(a.permissions) | fileType(a.kind)
        st.st_nlink = nlink_t(a.linkCount)
        st.st_size = off_t(a.size)
        st.st_blksize = 4096
        st.st_blocks = blkcnt_t((a.size + 511) / 512)
        st.st_uid = a.uid
        st.st_gid = a.gid
        let t = timespec(tv_sec: Int(a.mtime.seconds), tv_nsec: a.mtime.nanoseconds)
        st.st_mtim = t
        st.st_atim = t
        st.st_ctim = t
        return st
    }
}
