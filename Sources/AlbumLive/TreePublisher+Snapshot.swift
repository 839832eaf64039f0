import AlbumCore
import Dispatch

/// The views kept between mounts (`ViewsKeeper`).
extension TreePublisher {
    /// The photos of the tree shown, when it came from a views snapshot and no scan replaced it
    /// yet (nil otherwise): a first scan compares what it finds with them.
    func snapshotShown() -> Int? {
        onQueue.treeFromSnapshot ? Photo.fingerprint(fs.library.photos) : nil
    }

    /// After a first scan whose tree came from a views snapshot, replaced by the one the index and
    /// the files give (the views then share the scan's photos, not a copy): the views need no new
    /// snapshot unless the photos differ from the snapshot's.
    func replacedSnapshotTree(unchanged: Bool, shown: Int) {
        onQueue.treeFromSnapshot = false
        if unchanged && Photo.fingerprint(known.photos) == shown { viewsUnsaved.withLock { $0 = false } }
    }

    /// Saves the views for the next mount once the index holds what they show (on the writer's
    /// queue, after this scan's writes).
    func saveViewsOnceWritten(after writes: DispatchQueue) {
        guard let keeper else { return }
        let library = fs.library
        let changed = viewsUnsaved.withLock { v in defer { v = false }; return v }
        writes.async { keeper.save(library, changed: changed) }
    }

    /// The views as the index now holds them, for the next mount (the main thread, at unmount);
    /// not a tree a scan is still filling in (the next mount then builds its views from the index).
    func saveViewsAtStop() {
        guard let keeper, statusBox.withLock({ $0.state == "done" }) else { return }
        keeper.save(fs.library, changed: viewsUnsaved.withLock { v in defer { v = false }; return v })
    }
}
