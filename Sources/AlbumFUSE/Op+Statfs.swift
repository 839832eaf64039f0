import CFuse3
import Glibc

extension Operations {
    /// `statfs`: the figures of the filesystem SOURCE is on, with albumfs's name limit
    /// (`AlbumFileSystem.statistics`).
    static func statfs(_ req: fuse_req_t?, _ ino: fuse_ino_t) {
        let ctx = FuseContext.of(req)
        // (statvfs of SOURCE waits on its storage: EIO past `-o source_timeout`.)
        guard let s = ctx.sourceCall(req, { ctx.fs.statistics() }) else { return }
        var st = statvfs()
        st.f_bsize = UInt(s.blockSize)
        st.f_frsize = UInt(s.blockSize)
        st.f_blocks = fsblkcnt_t(s.blocks)
        st.f_bfree = fsblkcnt_t(s.freeBlocks)
        st.f_bavail = fsblkcnt_t(s.availableBlocks)
        st.f_files = fsfilcnt_t(s.files)
        st.f_ffree = fsfilcnt_t(s.freeFiles)
        st.f_favail = fsfilcnt_t(s.freeFiles)
        st.f_namemax = UInt(s.nameMax)
        _ = fuse_reply_statfs(req, &st)
    }
}
