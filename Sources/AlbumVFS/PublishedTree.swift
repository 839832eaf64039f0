import AlbumCore
import AlbumSystem

/// The tree the kernel is answered from: one `TreeView` swapped whole, so a request reads the one
/// published when it starts and never waits on a rebuild. It is published by `AlbumFileSystem
/// .update` (a new library) and by `hideThumbnails` (a thumbnail that left its listing).
///
/// Thumbnails that failed from their photo's content leave the listing: a file manager, an
/// archiver or `mmap` meets each such file once (EIO), not at every listing. The service
/// remembers the failure until the photo changes; the set of photos whose thumbnails are not
/// listed is published with the tree (`TreeView.hiddenThumbnails`), found again at each tree and
/// after each read that failed.
final class PublishedTree: Sendable {
    let inodes: InodeAllocator
    let thumbnails: ThumbnailProvider?
    // Protects the published tree; held only to read it or swap it, never while another lock is
    // waited for: the thumbnails not listed are found before it is taken (`unrenderablePhotos`
    // asks the thumbnail service and `InodeAllocator`'s numbering, which a tree's numbering holds
    // for long), and a swap made on a tree that changed meanwhile is tried again.
    private let snapshot: Locked<TreeView>

    init(library: Library, inodes: InodeAllocator, thumbnails: ThumbnailProvider?, presentation: TreePresentation) {
        self.inodes = inodes
        self.thumbnails = thumbnails
        let first = TreeView(library: library, table: NodeTable(library: library, inodes: inodes), presentation: presentation)
        snapshot = Locked(first.hiding(Self.unrenderablePhotos(thumbnails, inodes, first)))
    }

    /// The tree published now.
    var current: TreeView { snapshot.withLock { $0 } }

    /// Publishes `library`'s tree; inode numbers of paths that stay are kept (`renamed`: files
    /// found under new paths, whose photos keep theirs). Returns the tree before and the new one.
    func publish(_ library: Library, renamed: [FileMove]) -> (old: TreeView, new: TreeView) {
        let shown = current
        let table = NodeTable(library: library, inodes: inodes, renamed: renamed, previous: shown.table)
        return swap { s in TreeView(library: library, table: table, hiddenVersion: s.hiddenVersion, presentation: s.presentation) }
    }

    /// Publishes the tree with the thumbnails the service holds unrenderable now not listed.
    func hideThumbnails() {
        _ = swap { $0 }
    }

    /// Publishes `make(tree)`, with the thumbnails unrenderable now not listed, in place of the
    /// tree published. The hidden set is found with no lock held, then the swap is made if no
    /// other swap came between (each swap counts one more `hiddenVersion`): a thumbnail that left
    /// its listing meanwhile, or a tree published meanwhile, is found again (rare: a read that
    /// failed during a swap).
    private func swap(_ make: (TreeView) -> TreeView) -> (old: TreeView, new: TreeView) {
        while true {
            let shown = current
            let next = make(shown)
            let hidden = Self.unrenderablePhotos(thumbnails, inodes, next)
            let swapped = snapshot.withLock { s -> (TreeView, TreeView)? in
                guard s.hiddenVersion == shown.hiddenVersion else { return nil }
                let previous = s
                s = next.hiding(hidden)
                return (previous, s)
            }
            if let swapped { return swapped }
        }
    }

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
}
