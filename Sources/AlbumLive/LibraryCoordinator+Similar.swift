import AlbumCore

/// `duplicates/similar/`: the hash pass started after each scan that changed files, its groups
/// shown when it ends (`SimilarFinder`).
extension LibraryCoordinator {
    /// Starts the hash pass over the photos as they are now (returns at once); the groups it
    /// finds are published on the queue, if they changed.
    func findSimilar() {
        guard let similar else { return }
        similar.start(state.photos, exact: duplicateGroups) { [weak self] groups in
            guard let coordinator = self else { return }
            coordinator.queue.async { coordinator.showSimilar(groups) }
        }
    }

    func showSimilar(_ groups: [String: UInt32]) {
        statusBox.withLock { $0.similarGroups = Int(groups.values.max() ?? 0) }
        guard groups != similarGroups else { return }
        similarGroups = groups
        publish()
    }
}
