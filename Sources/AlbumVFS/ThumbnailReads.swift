import AlbumCore
import AlbumSystem

/// What an open or a read of a thumbnail sets going beside its own answer: the next thumbnails a
/// reader in folder order reads, made ahead; and, after a render that failed from the photo's
/// content, the tree published without the thumbnail and the kernel told to drop its entry.
final class ThumbnailReads: Sendable {
    let tree: PublishedTree
    let sourceRoot: String
    // Protects the last thumbnail opened in each thumbnails folder, to guess what a reader reads
    // next; held only while one open is noted.
    private let readAhead = Locked(ReadAhead())
    // Protects how the kernel is told of a thumbnail that left its listing, and the pool that
    // tells it (`setNotifier`); held only to read or set them.
    private let notifier = Locked<(pool: WorkerPool, notify: @Sendable (TreeChanges) -> Void)?>(nil)

    init(tree: PublishedTree, sourceRoot: String) {
        self.tree = tree
        self.sourceRoot = sourceRoot
    }

    /// How the kernel is told of changes made between trees, and the pool that tells it: never
    /// the request's own thread (libfuse documents a deadlock for notifications sent from a
    /// handler), and after its reply.
    func setNotifier(pool: WorkerPool, _ notify: @escaping @Sendable (TreeChanges) -> Void) {
        notifier.withLock { $0 = (pool, notify) }
    }

    /// After a thumbnail is opened: when the reader goes through its folder in order
    /// (`ReadAhead`), the next thumbnails that way are made in the background (`ThumbnailProvider
    /// .prepare`), on the cores the reader's own render leaves idle.
    func opened(_ node: Node, box: ThumbnailBox, _ s: TreeView) {
        guard let thumbnails = tree.thumbnails, thumbnails.renderAhead > 0, let folder = s.table.folders[node.parent],
              case .photos(let entries) = folder.folder.entries, let place = entries.place(named: node.name) else { return }
        let guess = readAhead.withLock { $0.opened(place, in: node.parent, count: entries.count, depth: thumbnails.renderAhead) }
        guard let guess else { return }
        for n in guess.next {
            let i: Int
            switch guess.order {
            case .listing: i = entries.photo(at: n)
            case .names: i = entries.photo(atRank: n)
            }
            thumbnails.prepare(s.library.photos[i], sourceRoot: sourceRoot, box: box)
        }
    }

    /// After a thumbnail's read failed from its photo's content: the tree is published without it
    /// if the service now holds it unrenderable, and the kernel is told to drop the entry, from
    /// the notifier's pool.
    func failed(_ inode: UInt64) {
        tree.hideThumbnails()
        let s = tree.current
        guard let node = s.table[inode], s.isHidden(node), let (pool, notify) = notifier.withLock({ $0 }) else { return }
        var changes = TreeChanges()
        changes.removedEntries = [(node.parent, node.name)]
        changes.changedInodes = [node.parent]
        let gone = changes
        pool.submit(.interactive) { notify(gone) }
    }
}
