import CFuse3
import Glibc

extension Operations {
    /// `statfs`: the library's size in blocks, its node count, the name limit; nothing free
    /// (the mount is read-only but for picks).
    static func statfs(_ req: fuse_req_t?, _ ino: fuse_ino_t) {
        let s = FuseContext.of(req).fs.statistics()
        var st = statvfs()
        st.f_bsize = UInt(s.blockSize)
        st.f_frsize = UInt(s.blockSize)
        st.f_blocks = fsblkcnt_t(s.blocks)
        st.f_files = fsfilcnt_t(s.files)
        st.f_namemax = UInt(s.nameMax)
        _ = fuse_reply_statfs(req, &st)
    }
}
