import AlbumCore
import AlbumSystem

/// The mounted filesystem in POSIX terms: inodes, entries, attributes and errno, with no FUSE.
///
/// Every operation returns `Result<_, Errno>`; the FUSE adapter turns each into one reply. This
/// type only composes the parts, each owning its state: the published tree (`PublishedTree`, an
/// immutable `TreeView` swapped whole, so readers never wait on a rebuild), what answers names
/// and attributes from it (`Namespace`), listings (`Listings`), opens and reads (`FileOpens`,
/// over `SourceFiles`), `picked/` (`PickedFolder`), `filter/` (`FilterNodes`) and `.albumfs/`
/// (`ControlFiles`).
public final class AlbumFileSystem: Sendable {
    public let sourceRoot: String
    public let owner: Owner
    let tree: PublishedTree
    let names: Namespace
    let listings: Listings
    let opens: FileOpens
    /// The files behind the tree: handles, SOURCE, thumbnails' reads, the storage's state.
    public let sources: SourceFiles

    /// - Parameters:
    ///   - services: what answers thumbnails, desktop thumbnails and `.albumfs/status` (none by default).
    ///   - picks: where `picked/` persists and how it takes links (`PickSettings.none`: a tree
    ///     without `picked/`).
    ///   - log: where read problems are reported (once per file).
    public init(library: Library, sourceRoot: String, owner: Owner, services: FileSystemServices = FileSystemServices(),
                picks: PickSettings = .none, log: @escaping @Sendable (String) -> Void) throws(Errno) {
        self.sourceRoot = sourceRoot
        self.owner = owner
        let inodes = InodeAllocator()
        let registry = try picks.storage.map { storage throws(Errno) in try PickRegistry(storage: storage, limit: picks.limit, inodes: inodes) }
        let thumbnails = services.thumbnails
        sources = SourceFiles(sourceRoot: sourceRoot, thumbnails: thumbnails, log: log)
        let sizes = Dictionary((thumbnails?.boxes ?? []).map { ($0, thumbnails!.size(for: $0)) }, uniquingKeysWith: { first, _ in first })
        tree = PublishedTree(library: library, inodes: inodes, thumbnails: thumbnails,
                             presentation: TreePresentation(owner: owner, sourceRoot: sourceRoot, thumbnailSizes: sizes,
                                                            wholeSecondMtimes: services.desktopThumbnails != nil))
        let filters = FilterNodes(inodes: inodes)
        _ = filters.libraryChanged(library)
        let picked = PickedFolder(picks: registry, settings: picks, owner: owner, tree: tree, filters: filters, sources: sources)
        names = Namespace(tree: tree, filters: filters, picked: picked, controls: ControlFiles(status: services.status))
        listings = Listings(names: names, desktopThumbnails: services.desktopThumbnails, owner: owner)
        opens = FileOpens(names: names, sources: sources, thumbnails: ThumbnailReads(tree: tree, sourceRoot: sourceRoot), owner: owner)
    }

    /// Replaces the tree; inode numbers of paths that stay are kept. Returns what the kernel's
    /// caches must drop.
    /// - Parameters:
    ///   - complete: whether the tree holds every file of the library (false for the trees
    ///     shown while a first scan is still reading: a pick whose photo is not in them yet is not
    ///     lost, and is not looked for elsewhere).
    ///   - renamed: source files found under new paths since the last update (their folder renamed
    ///     or moved), unchanged: their photos keep their inodes.
    @discardableResult
    public func update(_ library: Library, complete: Bool = true, renamed: [FileMove] = []) -> TreeChanges {
        let (old, new) = tree.publish(library, renamed: renamed)
        // (After the swap, not under its lock: a filter folder being built holds `FilterFolders`' lock.)
        let filterChanges = names.filters.libraryChanged(library)
        if complete { names.picked.followMovedPicks(new, previous: old, renamed: renamed) }
        var changes = TreeChanges.between(old.table, new.table)
        // Filter folders are built again for the new tree when next asked for: the kernel drops
        // their listings and attributes.
        changes.changedInodes += filterChanges.changedInodes
        changes.removedEntries += filterChanges.removedEntries
        return changes
    }

    /// The tree shown now.
    public var library: Library { tree.current.library }

    /// How the kernel is told of changes made between trees (a thumbnail that left its listing),
    /// from `pool`: the FUSE session's notifications, sent off the request's thread.
    public func setInvalidator(pool: WorkerPool, _ body: @escaping @Sendable (TreeChanges) -> Void) {
        opens.thumbnails.setNotifier(pool: pool, body)
    }

    /// Told by whoever scans the library (docs/status.md, "A library that cannot be listed").
    public func setLibraryAvailable(_ available: Bool) { sources.libraryAvailable.store(available, ordering: .relaxed) }

    /// The photo the views show now for this source file (relative to SOURCE), if any.
    public func shownPhoto(_ relativePath: String) -> Photo? {
        let s = tree.current
        return s.table.photo(source: relativePath).map { s.library.photos[$0] }
    }

    /// Who follows the library from now on: requests wait on it for the tree that shows a moved
    /// file, and tell it of files found changed (held weakly: it holds the filesystem).
    public func follow(_ follower: any LibraryFollowing) { sources.follow(follower) }
}

/// What answers beside the tree: thumbnails (`thumbnails/`), the writer of desktop file managers'
/// thumbnails, `.albumfs/status`. Each may be absent (a test's tree, `albumfs ls`).
public struct FileSystemServices: Sendable {
    public var thumbnails: ThumbnailProvider?
    public var desktopThumbnails: DesktopThumbnailing?
    public var status: StatusReporter?

    public init(thumbnails: ThumbnailProvider? = nil, desktopThumbnails: DesktopThumbnailing? = nil, status: StatusReporter? = nil) {
        self.thumbnails = thumbnails
        self.desktopThumbnails = desktopThumbnails
        self.status = status
    }
}
