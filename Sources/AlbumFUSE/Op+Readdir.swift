import AlbumCore
import AlbumSystem
import AlbumVFS
import CFuse3
import Glibc

extension Operations {
    /// `readdir`: names and types, newest first, from the handle's offset. The reply to the
    /// request that follows is made meanwhile (`FuseContext.listingPrefetch`): a reader waits for
    /// each reply before it asks for the next.
    static func readdir(_ req: fuse_req_t?, _ ino: fuse_ino_t, _ size: Int, _ off: off_t,
                        _ fi: UnsafeMutablePointer<fuse_file_info>?) {
        let ctx = FuseContext.of(req)
        let handle = fi!.pointee.fh
        let request = ListingRequest(offset: Int(off), size: size)
        switch ctx.listingPrefetch.take(handle, request).map(Result.success) ?? names(ctx.fs, handle, request) {
        case .failure(let e):
            Reply.error(req, e)
        case .success(let reply):
            // Asked for before the reply goes: a `releasedir` can come as soon as the reader has
            // it, and must find the slot to let it go (handles are never reused, so a slot taken
            // after it would be held for good).
            if let next = reply.nextOffset {
                let ahead = ListingRequest(offset: next, size: size)
                ctx.listingPrefetch.prefetch(handle, ahead) { [fs = ctx.fs] in try? names(fs, handle, ahead).get() }
            }
            _ = reply.bytes.withUnsafeBufferPointer { fuse_reply_buf(req, $0.baseAddress, $0.count) }
        }
    }

    /// The `readdir` reply to `request` of the listing `handle`.
    private static func names(_ fs: AlbumFileSystem, _ handle: UInt64, _ request: ListingRequest) -> Result<ListingReply, Errno> {
        packed(request.size,
               // (A dirent is 24 bytes and the name, padded to 8: never more entries than fit.)
               fs.readDirectoryNames(handle, from: request.offset, limit: request.size / 32 + 1)) { buf, room, entry in
            // (fuse_add_direntry takes the inode number and the type bits of the mode, nothing
            // else, and reads nothing of the request: a reply made ahead has none.)
            var st = Glibc.stat()
            st.st_ino = ino_t(entry.inode)
            st.st_mode = Reply.fileType(entry.kind)
            return FileNameBytes.withCString(entry.name) { fuse_add_direntry(nil, buf, room, $0, &st, off_t(entry.nextOffset)) }
        }
    }

    /// `readdirplus`: as `readdir`, with each entry's attributes, so `ls -l` needs no lookups.
    static func readdirplus(_ req: fuse_req_t?, _ ino: fuse_ino_t, _ size: Int, _ off: off_t,
                            _ fi: UnsafeMutablePointer<fuse_file_info>?) {
        let ctx = FuseContext.of(req)
        // A direntplus is a 128-byte `fuse_entry_out` before the dirent.
        let listed = ctx.fs.readDirectory(fi!.pointee.fh, from: Int(off), limit: size / 160 + 1)
        let reply = packed(size, listed) { buf, room, entry in
            var e = Reply.entryParam(ctx, entry.attributes)
            return FileNameBytes.withCString(entry.name) { fuse_add_direntry_plus(req, buf, room, $0, &e, off_t(entry.nextOffset)) }
        }
        switch reply {
        case .failure(let e): Reply.error(req, e)
        case .success(let reply): _ = reply.bytes.withUnsafeBufferPointer { fuse_reply_buf(req, $0.baseAddress, $0.count) }
        }
    }

    /// As many of `listed`'s entries as fit in `size` bytes, packed by `add`
    /// (`fuse_add_direntry[_plus]`, which returns the size an entry needs: more than `room` when
    /// it does not fit).
    private static func packed<Entry: ListedEntry>(_ size: Int, _ listed: Result<[Entry], Errno>,
                                                   _ add: (UnsafeMutablePointer<CChar>?, Int, Entry) -> Int) -> Result<ListingReply, Errno> {
        listed.map { entries in
            var next: Int?
            let bytes = [UInt8](unsafeUninitializedCapacity: max(size, 1)) { buffer, used in
                used = 0
                let base = UnsafeMutableRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
                for entry in entries {
                    let needed = add(base + used, size - used, entry)
                    if needed > size - used { break }
                    used += needed
                    next = entry.nextOffset
                }
            }
            return ListingReply(bytes: bytes, nextOffset: next)
        }
    }
}

/// What a `readdir` request asks of an open listing: entries from `offset`, in at most `size` bytes.
struct ListingRequest: Equatable, Sendable {
    var offset: Int
    var size: Int
}

/// A `readdir` reply: the packed entries, and the offset a following request starts from (nil
/// when the reply is empty: the listing has nothing more).
struct ListingReply: Sendable {
    var bytes: [UInt8]
    var nextOffset: Int?
}

/// An entry of a listing reply: where the listing goes on after it.
protocol ListedEntry { var nextOffset: Int { get } }
extension DirectoryName: ListedEntry {}
extension DirectoryEntry: ListedEntry {}
