import CFuse3

extension Operations {
    /// `read`: bytes of the original, exactly as on disk; a thumbnail's, rendered on the first
    /// read, on the context's slow-work threads.
    static func read(_ req: fuse_req_t?, _ ino: fuse_ino_t, _ size: Int, _ off: off_t,
                     _ fi: UnsafeMutablePointer<fuse_file_info>?) {
        let ctx = FuseContext.of(req)
        let handle = fi!.pointee.fh
        guard ctx.fs.readMayWait(handle) else { return answerRead(req, ctx, handle, size, off) }
        ctx.later(req) { req in answerRead(req, ctx, handle, size, off) }
    }

    private static func answerRead(_ req: fuse_req_t?, _ ctx: FuseContext, _ handle: UInt64, _ size: Int, _ off: off_t) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(size, 1), alignment: 16)
        defer { buffer.deallocate() }
        switch ctx.fs.read(handle, at: Int64(off), into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<size])) {
        case .success(let n): _ = fuse_reply_buf(req, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), n)
        case .failure(let e): Reply.error(req, e)
        }
    }
}
