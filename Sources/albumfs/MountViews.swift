import AlbumCore
import AlbumIndex
import AlbumLive
import AlbumMetadata
import AlbumSystem
import Glibc

/// The mount's views snapshot, beside its index (`ViewSnapshot`): the first tree of a remount,
/// and saved again once the index holds what the views show.
struct MountViews {
    let path: String
    let key: String
    let index: LibraryIndex

    /// Nil without an index (the snapshot names the index generation it shows).
    init?(index: LibraryIndex?, options: MountOptions) {
        guard let index else { return nil }
        self.index = index
        path = ViewSnapshot.path(forIndex: index.path)
        key = Self.key(options)
    }

    /// What shapes the views besides the index: the options the rules and the folders take, and
    /// the program itself (another build may decide otherwise).
    static func key(_ options: MountOptions) -> String {
        ["albumfs views", "boxes=" + options.thumbnailBoxes.map(\.description).joined(separator: ","),
         "views=" + options.views.description, "favorite_rating=\(options.favoriteRating)",
         "heif=\(options.heif)", "screenshot_names=" + options.screenshotNames.joined(separator: "\u{1F}"),
         "screenshot_folders=" + options.screenshotFolders.joined(separator: "\u{1F}"),
         "program=" + ViewSnapshot.programIdentity].joined(separator: "\n")
    }

    /// The snapshot's library and the generation it shows, when it shows the index as it is now;
    /// else nil, with a line saying why when there was one to refuse.
    func load() -> (library: Library, generation: Int64)? {
        guard let generation = try? index.generation() else { return nil }
        let (library, refusal) = ViewSnapshot.load(path: path, key: key, generation: generation)
        if let refusal { Log.line("albumfs: the views snapshot \(path) is not used (\(refusal)): the views are built from the index") }
        return library.map { ($0, generation) }
    }

    /// Saves the views when the index or the views changed since the last save.
    func keeper(loaded: Int64?) -> ViewsKeeper {
        ViewsKeeper(loaded: loaded, discard: { [path] in _ = unlink(path) }) { [path, key, index] library, changed, lastSaved in
            guard let generation = try? index.generation(), changed || generation != lastSaved else { return nil }
            if let error = ViewSnapshot.save(library, path: path, key: key, generation: generation) {
                Log.line("albumfs: warning: the views snapshot \(path) cannot be written (\(error)); the next mount builds its views from the index")
                return nil
            }
            return generation
        }
    }
}

/// The tree shown when the mount answers: the views snapshot's when there is one (what the index
/// knows is then read by the coordinator, in the background: `known` nil), else the one the
/// index's rows give.
struct FirstTree {
    var library: Library?
    var known: LibraryState?
    let views: MountViews?
    /// The generation of the snapshot the tree came from (nil: built from the index's rows).
    let snapshotGeneration: Int64?

    /// `index` was opened without its check (`LibraryIndex.damage`): with a snapshot shown the
    /// coordinator checks it in the background; without, its rows are read now, so it is checked
    /// now, and a damaged one is given up for what `reopen` gives (it moves it aside for a new one).
    init(index: inout LibraryIndex?, scanner: LibraryScanner, _ options: MountOptions, reopen: () -> LibraryIndex?) {
        if let views = MountViews(index: index, options: options), let (library, generation) = views.load() {
            self.views = views
            self.library = library
            snapshotGeneration = generation
            return
        }
        if index?.damage() != nil {
            index = nil
            index = reopen()
        }
        views = MountViews(index: index, options: options)
        snapshotGeneration = nil
        (library, known) = LibraryCoordinator.libraryFromIndex(index, scanner: scanner, boxes: options.thumbnailBoxes,
                                                              views: options.views, log: { Log.line($0) })
    }

    /// Where the tree came from, as `.albumfs/status` says (`first_tree`).
    var origin: String { snapshotGeneration != nil ? "views snapshot" : views != nil ? "index" : "none" }
}
