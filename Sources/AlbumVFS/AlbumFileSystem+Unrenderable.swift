import AlbumCore
import Dispatch

/// Thumbnails that failed from their photo's content leave the listing: a file manager, an
/// archiver or `mmap` meets each such file once (EIO), not at every listing. The service
/// remembers the failure until the photo changes; the views ask it, and the kernel is told to
/// drop the entry once a read has failed.
extension AlbumFileSystem {
    /// The photos (indices in `s`) whose thumbnails failed from their content, as they are now.
    func unrenderablePhotos(_ s: (library: Library, table: NodeTable)) -> Set<Int> {
        guard let failed = thumbnails?.unrenderable(), !failed.isEmpty else { return [] }
        var found: Set<Int> = []
        for photo in failed {
            guard let number = inodes.photoNumber(source: photo.relativePath), let i = s.table.photo(number: number),
                  s.library.photos[i].identity == photo.identity,
                  photo.changedWhenRead == nil || s.library.photos[i].changedWhenRead == photo.changedWhenRead else { continue }
            found.insert(i)
        }
        return found
    }

    /// Whether `node` is a thumbnail that is no longer listed (its photo's failure looked up,
    /// not every failure gone through: lookups and opens ask this).
    func isHidden(_ node: Node, _ s: (library: Library, table: NodeTable)) -> Bool {
        guard case .file(.thumbnail(let i, _)) = node.kind, let thumbnails else { return false }
        return thumbnails.isUnrenderable(s.library.photos[i])
    }

    /// The positions in a thumbnails folder not to list, in order.
    func hiddenPositions(_ folder: NodeTable.Folder, _ s: (library: Library, table: NodeTable)) -> [Int] {
        guard case .photos(let entries) = folder.folder.entries, entries.thumbnailBox != nil else { return [] }
        return unrenderablePhotos(s).compactMap { entries.position(named: entries.name(ofPhoto: $0)) }.sorted()
    }

    /// After a thumbnail's read failed: the kernel drops the entry (off the request thread:
    /// libfuse documents a deadlock for notifications sent from a handler).
    func thumbnailFailed(_ inode: UInt64) {
        let s = current
        guard let node = s.table[inode], isHidden(node, s), let invalidate = invalidator.withLock({ $0 }) else { return }
        var changes = TreeChanges()
        changes.removedEntries = [(node.parent, node.name)]
        changes.changedInodes = [node.parent]
        let gone = changes
        DispatchQueue.global().async { invalidate(gone) }
    }
}
