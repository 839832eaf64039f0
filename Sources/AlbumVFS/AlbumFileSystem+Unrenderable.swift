import AlbumCore
import Dispatch

/// Thumbnails that failed from their photo's content leave the listing: a file manager, an
/// archiver or `mmap` meets each such file once (EIO), not at every listing. The service
/// remembers the failure until the photo changes; the set of photos whose thumbnails are not
/// listed is published with the tree (`TreeView.hiddenThumbnails`), found again at each tree and
/// after each read that failed, and the kernel is told to drop the entry.
extension AlbumFileSystem {
    /// The photos (indices in `tree`) whose thumbnails failed from their content, as they are now.
    static func unrenderablePhotos(_ thumbnails: ThumbnailProvider?, _ inodes: InodeAllocator, _ tree: TreeView) -> Set<Int> {
        guard let failed = thumbnails?.unrenderable(), !failed.isEmpty else { return [] }
        var found: Set<Int> = []
        for photo in failed {
            guard let number = inodes.photoNumber(source: photo.relativePath), let i = tree.table.photo(number: number),
                  tree.library.photos[i].identity == photo.identity,
                  photo.changedWhenRead == nil || tree.library.photos[i].changedWhenRead == photo.changedWhenRead else { continue }
            found.insert(i)
        }
        return found
    }

    /// After a thumbnail's read failed: the tree is published without it if the service now
    /// holds it unrenderable, and the kernel drops the entry (off the request thread: libfuse
    /// documents a deadlock for notifications sent from a handler).
    func thumbnailFailed(_ inode: UInt64) {
        hideThumbnails()
        let s = current
        guard let node = s.table[inode], s.isHidden(node), let invalidate = invalidator.withLock({ $0 }) else { return }
        var changes = TreeChanges()
        changes.removedEntries = [(node.parent, node.name)]
        changes.changedInodes = [node.parent]
        let gone = changes
        DispatchQueue.global().async { invalidate(gone) }
    }
}
