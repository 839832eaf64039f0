import AlbumCore
import AlbumSystem
import AlbumVFS
import Synchronization

/// Changes seen in SOURCE that the published tree may not show yet: the coordinator's, which
/// follows the library for the filesystem (`LibraryFollowing`).
///
/// Whoever follows the library counts each change where it is reported (`report`, as inotify
/// delivers it) and says which of them a published tree covers (`shown`). Between the two (the
/// debounce and the rescan of a folder: up to ~0.7 s) a photo whose folder was renamed is still
/// in the views under its old path's inode, and its file is not at that path any more: `open`
/// (and a thumbnail's render, a pick's hash) waits here for the tree that has the new one rather
/// than fail for a photo that is still in the library.
public final class PendingChanges: Sendable {
    private let reported = Atomic<Int>(0)
    private let covered = Atomic<Int>(0)
    /// The number of trees published (`treePublished`, after each `AlbumFileSystem.update`).
    private let trees = Atomic<Int>(0)
    /// Wakes the requests waiting in `awaitTree`; changed under its lock (so no wakeup is lost
    /// between a waiter's look and its wait): `trees` and `covered`.
    private let published = Condition()

    public init() {}

    /// A change seen (any thread); returns its number, for `shown(through:)`.
    @discardableResult
    public func report() -> Int { reported.add(1, ordering: .sequentiallyConsistent).newValue }

    /// The tree just published shows every change numbered up to `number`.
    public func shown(through number: Int) {
        published.lock()
        covered.max(number, ordering: .sequentiallyConsistent)
        published.broadcast()
        published.unlock()
    }

    /// A tree was published: the requests waiting for one look at it.
    func treePublished() {
        published.lock()
        trees.add(1, ordering: .sequentiallyConsistent)
        published.broadcast()
        published.unlock()
    }

    /// Whether a change was seen that no published tree shows yet.
    public var any: Bool { count > 0 }

    /// How many changes were seen that no published tree shows yet (`changes_pending` in
    /// `.albumfs/status`: a script that changed SOURCE waits for 0).
    public var count: Int {
        // (Covered first: a change reported in between is counted, never one too few.)
        let shown = covered.load(ordering: .sequentiallyConsistent)
        return max(0, reported.load(ordering: .sequentiallyConsistent) - shown)
    }

    /// The number of the tree now published (read it before the tree itself: a tree published
    /// in between only makes a wait end at once).
    var tree: Int { trees.load(ordering: .sequentiallyConsistent) }

    /// Waits until a tree newer than `tree` is published (true), or until nothing is pending
    /// (false: looked at after `grace`, for an event still on its way from inotify to `report`),
    /// or until the monotonic clock reads `deadline` (false). Woken by each tree published and
    /// each change shown, never by polling.
    func awaitTree(newerThan tree: Int, until deadline: Double, grace: Double) -> Bool {
        let graceEnds = Condition.monotonicNow() + grace
        published.lock()
        defer { published.unlock() }
        while true {
            if self.tree != tree { return true }
            let now = Condition.monotonicNow()
            if now >= deadline || (now >= graceEnds && !any) { return false }
            let wake = now < graceEnds ? min(graceEnds, deadline) : deadline
            _ = published.wait(until: Condition.deadline(in: wake - now))
        }
    }
}

/// The count alone as a follower (a test of the filesystem, where nobody scans): its trees and
/// changes as told, a changed file left for the next scan.
extension PendingChanges: LibraryFollowing {
    public var publishedTree: Int { tree }
    public func awaitTree(newerThan tree: Int, until deadline: Double) -> Bool { awaitTree(newerThan: tree, until: deadline, grace: 0.05) }
    public func fileChanged(_ relativePath: String) {}
}
