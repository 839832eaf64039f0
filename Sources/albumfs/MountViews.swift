import AlbumCore
import AlbumIndex
import AlbumLive
import AlbumSystem

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
        ViewsKeeper(loaded: loaded) { [path, key, index] library, changed, lastSaved in
            guard let generation = try? index.generation(), changed || generation != lastSaved else { return nil }
            if let error = ViewSnapshot.save(library, path: path, key: key, generation: generation) {
                Log.line("albumfs: warning: the views snapshot \(path) cannot be written (\(error)); the next mount builds its views from the index")
                return nil
            }
            return generation
        }
    }
}
