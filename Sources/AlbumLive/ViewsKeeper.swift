import AlbumCore
import Synchronization

/// Where the mount keeps its built views between mounts (the command line gives AlbumIndex's
/// `ViewSnapshot` beside the index): saved once the index holds what they show, so that the next
/// mount can answer before deciding a single photo again.
public final class ViewsKeeper: Sendable {
    /// Saves `library` as of the index's current generation, when that or the views changed since
    /// the last save (`changed`); returns the generation saved at, or nil (not saved, or the same).
    public typealias Save = @Sendable (_ library: Library, _ changed: Bool, _ lastSaved: Int64?) -> Int64?

    private let saveViews: Save
    /// The generation of the snapshot on disk as this mount knows it (loaded or saved), nil if none.
    private let lastSaved: Mutex<Int64?>

    /// - Parameter loaded: the generation of the snapshot the first tree came from, if it did.
    public init(loaded: Int64?, save: @escaping Save) {
        saveViews = save
        lastSaved = Mutex(loaded)
    }

    /// Called on the index writer's queue, after the writes of the views' scan.
    func save(_ library: Library, changed: Bool) {
        let before = lastSaved.withLock { $0 }
        if let saved = saveViews(library, changed, before) { lastSaved.withLock { $0 = saved } }
    }
}
