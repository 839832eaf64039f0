import AlbumCore
import AlbumSystem

/// Where the mount keeps its built views between mounts (the command line gives AlbumIndex's
/// `ViewSnapshot` beside the index): saved once the index holds what they show, so that the next
/// mount can answer before deciding a single photo again.
public final class ViewsKeeper: Sendable {
    /// Saves `library` as of the index's current generation, when that or the views changed since
    /// the last save (`changed`); returns the generation saved at, or nil (not saved, or the same).
    public typealias Save = @Sendable (_ library: Library, _ changed: Bool, _ lastSaved: Int64?) -> Int64?

    private let saveViews: Save
    private let discardViews: @Sendable () -> Void
    /// The generation of the snapshot on disk as this mount knows it (loaded or saved), nil if
    /// none; and whether snapshots were given up (`discard`).
    private let saved: Locked<(generation: Int64?, discarded: Bool)>

    /// - Parameters:
    ///   - loaded: the generation of the snapshot the first tree came from, if it did.
    ///   - discard: deletes the snapshot on disk.
    public init(loaded: Int64?, discard: @escaping @Sendable () -> Void = {}, save: @escaping Save) {
        saveViews = save
        discardViews = discard
        saved = Locked((loaded, false))
    }

    /// Called on the index writer's queue, after the writes of the views' scan.
    func save(_ library: Library, changed: Bool) {
        let (before, discarded) = saved.withLock { $0 }
        guard !discarded else { return }
        if let generation = saveViews(library, changed, before) { saved.withLock { $0.generation = generation } }
    }

    /// Deletes the snapshot and saves none again: the index it names is damaged, and the next
    /// mount, finding no snapshot, checks the index before it reads it (and moves it aside).
    func discard() {
        saved.withLock { $0.discarded = true }
        discardViews()
    }
}
