import AlbumCore
import AlbumSystem
import AlbumVFS
import CFuse3
import Glibc

extension Operations {
    /// `readdir`: names and types, newest first, from the handle's offset.
    static func readdir(_ req: fuse_req_t?, _ ino: fuse_ino_t, _ size: Int, _ off: off_t,
                        _ fi: UnsafeMutablePointer<fuse_file_info>?) {
        fill(req, size, off, fi, { fs, fh, limit in fs.readDirectoryNames(fh, from: Int(off), limit: limit) }) { buf, room, entry, _ in
            // (fuse_add_direntry takes the inode number and the type bits of the mode, nothing else.)
            var st = Glibc.stat()
            st.st_ino = ino_t(entry.inode)
            st.st_mode = Reply.fileType(entry.kind)
            return FileNameBytes.withCString(entry.name) { fuse_add_direntry(req, buf, room, $0, &st, off_t(entry.nextOffset)) }
        }
    }

    /// `readdirplus`: as `readdir`, with each entry's attributes, so `ls -l` needs no lookups.
    static func readdirplus(_ req: fuse_req_t?, _ ino: fuse_ino_t, _ size: Int, _ off: off_t,
                            _ fi: UnsafeMutablePointer<fuse_file_info>?) {
        fill(req, size, off, fi, { fs, fh, limit in fs.readDirectory(fh, from: Int(off), limit: limit) }) { buf, room, entry, ctx in
            var e = Reply.entryParam(ctx, entry.attributes)
            return FileNameBytes.withCString(entry.name) { fuse_add_direntry_plus(req, buf, room, $0, &e, off_t(entry.nextOffset)) }
        }
    }

    /// Fills one reply buffer with as many entries as fit; `list` reads them from the open
    /// listing, `add` is `fuse_add_direntry[_plus]`, which returns the size an entry needs (more
    /// than `room` when it does not fit).
    private static func fill<Entry>(_ req: fuse_req_t?, _ size: Int, _ off: off_t, _ fi: UnsafeMutablePointer<fuse_file_info>?,
                                    _ list: (AlbumFileSystem, UInt64, Int) -> Result<[Entry], Errno>,
                                    _ add: (UnsafeMutablePointer<CChar>?, Int, Entry, FuseContext) -> Int) {
        let ctx = FuseContext.of(req)
        // The smallest dirent is 24 bytes plus the name: never ask for more than can fit.
        switch list(ctx.fs, fi!.pointee.fh, size / 32 + 1) {
        case .failure(let e):
            Reply.error(req, e)
        case .success(let entries):
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(size, 1))
            defer { buffer.deallocate() }
            var used = 0
            for entry in entries {
                let needed = add(buffer + used, size - used, entry, ctx)
                if needed > size - used { break }
                used += needed
            }
            _ = fuse_reply_buf(req, buffer, used)
        }
    }
}
