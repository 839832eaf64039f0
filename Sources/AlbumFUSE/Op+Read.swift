import AlbumSystem
import AlbumVFS
import CFuse3

extension Operations {
    /// `read`: bytes of the original, exactly as on disk; a thumbnail's, rendered on the first
    /// read, on the context's slow-work threads. Where it runs is the handle's (`ReadService`,
    /// chosen at the open). A read of an original waits on the library's storage, and is answered
    /// EIO past `-o source_timeout` (`FuseContext.sourceCall`); a render waits on a decoder,
    /// bounded by `-o thumbnail_timeout` in its worker, so a slow one never makes the library
    /// "stalled" (it is refused at once while the library is, and a thumbnail made is served).
    static func read(_ req: fuse_req_t?, _ ino: fuse_ino_t, _ size: Int, _ off: off_t,
                     _ fi: UnsafeMutablePointer<fuse_file_info>?) {
        let ctx = FuseContext.of(req)
        let handle = fi!.pointee.fh
        let read: @Sendable () -> ReadBytes = { ReadBytes(ctx, handle, size, off) }
        switch ReadService(handle: handle) {
        case .render:
            // While the storage is stalled a thumbnail's read waits on nothing (its bytes made, or
            // EIO with no render): answered here, not queued behind renders that may wait on it.
            if ctx.deadlines.isStalled { return answer(req, ReadBytes(ctx, handle, size, off, storageStalled: true)) }
            ctx.later(req) { req in answer(req, read()) }
        case .source:
            if let made = ctx.sourceCall(req, read, late: { $0.free() }) { answer(req, made) }
        case .inline:
            answer(req, read())
        }
    }

    private static func answer(_ req: fuse_req_t?, _ made: ReadBytes) {
        defer { made.free() }
        switch made.result {
        case .success(let n): _ = fuse_reply_buf(req, made.buffer.baseAddress?.assumingMemoryBound(to: CChar.self), n)
        case .failure(let e): Reply.error(req, e)
        }
    }
}

/// A read's bytes, in a buffer of their own until answered (or let go).
/// (`@unchecked Sendable`: one thread at a time has it: the reader's, then the answer's.)
struct ReadBytes: @unchecked Sendable {
    let buffer: UnsafeMutableRawBufferPointer
    let result: Result<Int, Errno>

    init(_ ctx: FuseContext, _ handle: UInt64, _ size: Int, _ off: off_t, storageStalled: Bool = false) {
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(size, 1), alignment: 16)
        result = ctx.fs.read(handle, at: Int64(off), into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<size]),
                             storageStalled: storageStalled)
    }

    func free() { buffer.deallocate() }
}
