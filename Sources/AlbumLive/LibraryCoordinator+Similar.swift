import AlbumCore

/// `duplicates/similar/`: the hash pass started after each scan that changed files, its groups
/// shown when it ends (`SimilarFinder`).
extension LibraryCoordinator {
    /// Starts the hash pass over the photos as they are now (returns at once); the groups it
    /// finds are published on the queue, if they changed.
    func findSimilar() {
        guard let similar else { return }
        similar.start(state.photos, exact: onQueue.duplicateGroups, progress: { [weak self] done, total in
            self?.statusBox.withLock { $0.similar = "hashing \(done)/\(total)" }
        }, done: { [weak self] groups in
            guard let coordinator = self else { return }
            coordinator.queue.async { coordinator.showSimilar(groups) }
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
