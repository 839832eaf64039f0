import AlbumCore
import Dispatch

/// `duplicates/`'s groups, found as a scan's last step, and `duplicates/similar/`'s, found by a
/// hash pass in the background after each scan that changed files (`SimilarFinder`), its groups
/// shown when it ends.
extension TreePublisher {
    /// Finds `duplicates/`'s groups again, hashing the files new or changed (`DuplicateFinder`),
    /// the status saying so while it reads; whether any photo's group changed.
    func findDuplicates() -> Bool {
        guard let duplicates else { return false }
        statusBox.withLock { $0.duplicates = "hashing" }
        let groups = duplicates.groups(for: known.photos) { [self] done, total in
            statusBox.withLock { $0.duplicates = "hashing \(done)/\(total)" }
        }
        let changed = groups != onQueue.duplicateGroups
        onQueue.duplicateGroups = groups
        statusBox.withLock {
            $0.duplicates = "done"
            $0.duplicateGroups = Int(groups.values.max() ?? 0)
        }
        return changed
    }

    /// Starts the hash pass over the photos as they are now (returns at once); the groups it
    /// finds are published on the queue, if they changed.
    func findSimilar() {
        guard let similar else { return }
        similar.start(known.photos, exact: onQueue.duplicateGroups, progress: { [weak self] done, total in
            self?.statusBox.withLock { $0.similar = "hashing \(done)/\(total)" }
        }, done: { [weak self] groups in
            guard let publisher = self else { return }
            publisher.queue.async { publisher.showSimilar(groups) }
        })
    }

    /// Shows a pass's groups (the tree published again only when they changed); the status says
    /// `done` once they are shown.
    func showSimilar(_ groups: [String: UInt32]) {
        if groups != onQueue.similarGroups {
            onQueue.similarGroups = groups
            publish()
        }
        statusBox.withLock {
            $0.similar = "done"
            $0.similarGroups = Int(groups.values.max() ?? 0)
        }
    }
}
