import AlbumCore
import AlbumSystem

/// Reads of open handles: an original's bytes from SOURCE, a thumbnail's made at its first read,
/// a text's from memory.
extension SourceFiles {
    /// The corresponding FUSE operation is `read`: up to `buffer.count` bytes at `offset`.
    /// - Parameter shown: the photo an inode shows in the tree published now.
    func read(_ handle: UInt64, at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, storageStalled: Bool = false,
              shown: (UInt64) -> Photo?) -> SourceRead {
        switch files.get(handle) {
        case nil: return SourceRead(.failure(.badFileDescriptor))
        case .original(let file)?: return SourceRead(read(file, at: offset, into: buffer))
        case .thumbnail(let thumb)?:
            let made = thumbnailBytes(thumb, storageStalled: storageStalled, shown: shown)
            return SourceRead(made.bytes.flatMap { Self.copy($0, at: offset, into: buffer) }, unrenderable: made.unrenderable ? thumb.inode : nil)
        case .text(let bytes)?: return SourceRead(Self.copy(bytes, at: offset, into: buffer))
        }
    }

    static func copy(_ bytes: [UInt8], at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        guard offset < Int64(bytes.count) else { return .success(0) }
        let n = min(buffer.count, bytes.count - Int(offset))
        bytes.withUnsafeBytes { src in
            buffer.baseAddress!.copyMemory(from: src.baseAddress! + Int(offset), byteCount: n)
        }
        return .success(n)
    }

    /// A thumbnail's bytes: made at the handle's first read, then kept with the handle.
    /// (`unrenderable`: the render failed from the photo's content.) While the storage is stalled
    /// a render would wait on it, so only bytes made already are served.
    private func thumbnailBytes(_ thumb: OpenThumbnail, storageStalled: Bool, shown: (UInt64) -> Photo?) -> (bytes: Result<[UInt8], Errno>, unrenderable: Bool) {
        if let ready = thumb.bytes.withLock({ $0 }) { return (.success(ready), false) }
        guard let thumbnails, !storageStalled else { return (.failure(.ioError), false) }
        // The photo as the tree shows it now (its folder may have been renamed since the open).
        let tree = following.publishedTree
        let photo = shown(thumb.inode) ?? thumb.photo
        // The source is opened once, by the render; a file not at its path is followed to
        // where the next tree shows it, or it is gone.
        let made = retryingAfterRename(photo, tree: tree, newPhoto: { shown(thumb.inode) }) { photo in
            thumbnails.thumbnail(of: photo, sourceRoot: sourceRoot, box: thumb.box)
        }
        switch made.result {
        case .failure(.notFound):
            // Gone, or not the file scanned (replaced, rewritten): rescanned, as an open's is.
            reportStale(made.photo)
            problems.log("thumbnail:" + made.photo.relativePath,
                         "albumfs: cannot make a thumbnail of \(made.photo.relativePath): cannot open the original: \(Errno.notFound)")
            return (.failure(.ioError), false)
        case .failure(let e):
            return (.failure(e), true)
        case .success(let bytes):
            thumb.bytes.withLock { $0 = bytes }
            return (.success(bytes), false)
        }
    }

    private func read(_ file: OpenOriginal, at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        let (at, count) = file.sourceRead(at: offset, count: buffer.count)
        guard let base = buffer.baseAddress, count > 0 else { return .success(0) }
        let (filled, error) = PositionalRead.fill(file.fd, into: base, count: count, at: at)
        if let error {
            problems.log("read:" + file.relativePath, "albumfs: cannot read \(file.relativePath): \(error)")
            return .failure(.ioError)
        }
        originalBytesRead.add(filled, ordering: .relaxed)
        return .success(filled)
    }
}

/// What a read of a handle answers, and the thumbnail (its inode) whose render failed from its
/// photo's content, if it was one: it may leave its listing (`ThumbnailReads.failed`).
struct SourceRead {
    let result: Result<Int, Errno>
    var unrenderable: UInt64?

    init(_ result: Result<Int, Errno>, unrenderable: UInt64? = nil) {
        self.result = result
        self.unrenderable = unrenderable
    }
}
