import AlbumCore
import AlbumSystem
import AlbumVFS
import CFuse3
import Glibc

extension Operations {
    /// `readdir`: names and types, newest first, from the handle's offset.
    static func readdir(_ req: fuse_req_t?, _ ino: fuse_ino_t, _ size: Int, _ off: off_t,
                        _ fi: UnsafeMutablePointer<fuse_file_info>?) {
        fill(req, size, off, fi) { buf, room, entry, ctx in
            var st = Reply.stat(entry.attributes)
            return FileNameBytes.withCString(entry.name) { fuse_add_direntry(req, buf, room, $0, &st, off_t(entry.nextOffset)) }
        }
    }

    /// `readdirplus`: as `readdir`, with each entry's attributes, so `ls -l` needs no lookups.
    static func readdirplus(_ req: fuse_req_t?, _ ino: fuse_ino_t, _ size: Int, _ off: off_t,
                            _ fi: UnsafeMutablePointer<fuse_file_info>?) {
        fill(req, size, off, fi) { buf, room, entry, ctx in
            var e = Reply.entryParam(ctx, entry.attributes)
            return FileNameBytes.withCString(entry.name) { fuse_add_direntry_plus(req, buf, room, $0, &e, off_t(entry.nextOffset)) }
        }
    }

    /// Fills one reply buffer with as many entries as fit; `add` is `fuse_add_direntry[_plus]`,
    /// which returns the size an entry needs (more than `room` when it does not fit).
    private static func fill(_ req: fuse_req_t?, _ size: Int, _ off: off_t, _ fi: UnsafeMutablePointer<fuse_file_info>?,
                             _ add: (UnsafeMutablePointer<CChar>?, Int, DirectoryEntry, FuseContext) -> Int) {
        let ctx = FuseContext.of(req)
        // The smallest dirent is 24 bytes plus the name: never ask for more than can fit.
        switch ctx.fs.readDirectory(fi!.pointee.fh, from: Int(off), limit: size / 32 + 1) {
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
