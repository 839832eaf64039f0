import AlbumCore
import AlbumSystem
import Dispatch
import Glibc

/// How `picked/` takes links: where its picks persist, how many it holds, where the mount is, and
/// the clock picks are stamped with.
public struct PickSettings: Sendable {
    /// Where the picks persist; nil for a tree without `picked/`.
    public var storage: PickStorage?
    /// `-o max_picks` (nil: no limit).
    public var limit: Int?
    /// The mount point's real path: absolute link targets into the mount are resolved against it.
    public var mountpoint: String?
    /// The clock picks are stamped with (replaceable in tests).
    public var clock: @Sendable () -> Timestamp

    /// No `picked/`.
    public static let none = PickSettings(storage: nil)

    public init(storage: PickStorage?, limit: Int? = nil, mountpoint: String? = nil,
                clock: @escaping @Sendable () -> Timestamp = { Timestamp.now }) {
        self.storage = storage
        self.limit = limit
        self.mountpoint = mountpoint
        self.clock = clock
    }
}

/// `picked/`: the one writable folder. A symlink picks a photo, `rm` unpicks, `mv` renames.
/// The rules and their errno values are in docs/picks.md. Its links and its own attributes are
/// answered from `picks` (they change with each pick, between trees), beside the published tree.
final class PickedFolder: Sendable {
    /// Where the picks are held; nil for a tree without picks (`picked/` is then empty, read-only).
    let picks: PickRegistry?
    let owner: Owner
    let sourceRoot: String
    /// The mount point's real path: absolute link targets into the mount are resolved against it.
    let mountpoint: String?
    /// The clock picks are stamped with (replaceable in tests).
    let clock: @Sendable () -> Timestamp
    let tree: PublishedTree
    /// A link's target may pass through `filter/` folders.
    let filters: FilterNodes
    /// A pick's photo is hashed from its file, following a move.
    let sources: SourceFiles
    /// Where lost picks' candidates are hashed, one search at a time, off the thread that swaps trees.
    let search = DispatchQueue(label: "albumfs.pick-search", qos: .utility)

    /// - Parameter settings: its `mountpoint` and `clock` (`picks` is made from its storage and limit).
    init(picks: PickRegistry?, settings: PickSettings, owner: Owner, tree: PublishedTree, filters: FilterNodes, sources: SourceFiles) {
        self.picks = picks
        self.owner = owner
        self.sourceRoot = sources.sourceRoot
        self.mountpoint = settings.mountpoint
        self.clock = settings.clock
        self.tree = tree
        self.filters = filters
        self.sources = sources
    }

    var current: TreeView { tree.current }

    /// How many photos `picked/` holds.
    var count: Int { picks?.all.count ?? 0 }

    /// Whether `parent` is `picked/` and it takes changes (links, `rm`, `mv`).
    func takesChanges(in parent: UInt64) -> Bool { picks != nil && parent == current.table.pickedInode }

    /// The attributes of the link `inode` is, if it is one of `picked/`'s.
    func linkAttributes(_ inode: UInt64, _ s: TreeView) -> Attributes? {
        picks?.pick(inode: inode).map { linkAttributes($0, s) }
    }

    /// Whether `inode` is one of `picked/`'s links.
    func isLink(_ inode: UInt64) -> Bool { picks?.pick(inode: inode) != nil }

    /// The corresponding FUSE operation is `lookup`, in `picked/`: nil when `parent` is not
    /// `picked/` or the name is one the tree answers (`.`, `..`, a name too long).
    func lookup(parent: UInt64, name: String, _ s: TreeView) -> Result<Attributes, Errno>? {
        guard parent == s.table.pickedInode, name != ".", name != "..", FileNameBytes.count(name) <= EntryNames.maxBytes else { return nil }
        guard let pick = picks?.pick(named: name) else { return .failure(.notFound) }
        return .success(linkAttributes(pick, s))
    }

    /// `picked/`'s own attributes: its mtime is its newest pick's, and it is writable while the
    /// picks' storage takes changes.
    func folderAttributes(_ node: Node) -> Attributes {
        let all = picks?.all ?? []
        let writable = picks?.storage.acceptsChanges ?? false
        return Attributes(inode: node.inode, kind: .directory, permissions: owner.mode(writable ? 0o755 : 0o555), linkCount: 2, size: 4096,
                          mtime: all.map(\.pickedAt).max() ?? node.mtime, uid: owner.uid, gid: owner.gid, cacheable: false)
    }

    func linkAttributes(_ pick: Pick, _ s: TreeView) -> Attributes {
        Attributes(inode: picks!.inode(of: pick.name), kind: .symlink, permissions: owner.mode(0o777),
                   linkCount: 1, size: Int64(target(of: pick, s).utf8.count), mtime: pick.pickedAt,
                   uid: owner.uid, gid: owner.gid, cacheable: false)
    }

    /// Where a pick points now: its photo's place in `by-date/` when the photo is in the library,
    /// else the last place it had (a dangling link, which comes back when the photo does).
    func target(of pick: Pick, _ s: TreeView) -> String {
        if let i = s.table.photo(source: pick.sourcePath), let path = s.table.canonicalPath(ofPhoto: i) { return "../" + path }
        return pick.target
    }

    /// The corresponding FUSE operation is `readlink`.
    func readlink(_ inode: UInt64) -> Result<String, Errno> {
        let s = current
        guard let pick = picks?.pick(inode: inode) else { return .failure(.invalidArgument) }
        return .success(target(of: pick, s))
    }

    /// The corresponding FUSE operation is `symlink`: `ln -s TARGET picked/NAME` picks a photo.
    /// `caller`: the user asking (the kernel's request context); see `Owner.mayChangePicks`.
    func symlink(parent: UInt64, name: String, target: String, caller: UInt32 = 0) -> Result<Attributes, Errno> {
        let published = sources.following.publishedTree
        var s = current
        guard let picks, parent == s.table.pickedInode else { return .failure(.readOnlyFileSystem) }
        guard owner.mayChangePicks(caller) else { return .failure(.accessDenied) }
        if FileNameBytes.count(name) > EntryNames.maxBytes { return .failure(.nameTooLong) }
        if name.isEmpty || name == "." || name == ".." || name.contains("/") { return .failure(.invalidArgument) }
        if picks.pick(named: name) != nil { return .failure(.exists) }
        var photoIndex: Int
        switch resolvePhoto(target, s) {
        case .failure(let e): return .failure(e)
        case .success(let i): photoIndex = i
        }
        // Its file is hashed: for a photo whose folder was just renamed in SOURCE, the tree that
        // shows its new path is waited for, as `open` waits (the snapshot and the photo's number
        // in it change together).
        _ = sources.retryingAfterRename(s.library.photos[photoIndex], tree: published, checkFirst: true, newPhoto: { () -> Photo? in
            let now = current
            guard case .success(let i) = resolvePhoto(target, now) else { return nil }
            (s, photoIndex) = (now, i)
            return now.library.photos[i]
        }) { _ in Result<Void, Errno>.success(()) }
        let photo = s.library.photos[photoIndex]
        guard let canonical = s.table.canonicalPath(ofPhoto: photoIndex) else { return .failure(.invalidArgument) }
        let root = sourceRoot
        var hashFailure: Errno?
        let added = picks.add(name: name, sourcePath: photo.relativePath, target: "../" + canonical, now: clock()) { () throws(Errno) -> String in
            do throws(Errno) { return try picks.storage.contentHash(of: ScannedFile(photo), beneath: root) } catch {
                hashFailure = error
                throw error
            }
        }
        if let hashFailure {
            if hashFailure == .notFound { sources.reportStale(photo) }
            sources.problems.log(sourceRoot + "/" + photo.relativePath, "albumfs: cannot pick \(photo.relativePath): its bytes cannot be read (\(hashFailure))")
        }
        return added.map { linkAttributes($0, s) }
    }

    /// The corresponding FUSE operation is `unlink`: `rm picked/NAME` unpicks.
    /// `parent` is `picked/` (`takesChanges`).
    func unlink(name: String, caller: UInt32) -> Result<Void, Errno> {
        guard let picks else { return .failure(.readOnlyFileSystem) }
        guard owner.mayChangePicks(caller) else { return .failure(.accessDenied) }
        return picks.remove(name: name)
    }

    /// The corresponding FUSE operation is `rename`, within `picked/` only.
    /// `flags` are renameat2's: RENAME_NOREPLACE (1) is honoured, RENAME_EXCHANGE (2) refused.
    func rename(parent: UInt64, name: String, newParent: UInt64, newName: String, flags: UInt32, caller: UInt32 = 0) -> Result<Void, Errno> {
        let s = current
        guard let picks, parent == s.table.pickedInode, newParent == s.table.pickedInode else { return .failure(.readOnlyFileSystem) }
        guard owner.mayChangePicks(caller) else { return .failure(.accessDenied) }
        if flags & 2 != 0 { return .failure(.invalidArgument) }
        if FileNameBytes.count(newName) > EntryNames.maxBytes { return .failure(.nameTooLong) }
        return picks.rename(name, to: newName, noReplace: flags & 1 != 0)
    }

    /// What `mknod`, `mkdir`, `create` and `link` answer: EPERM in `picked/` (only links belong
    /// there), EROFS everywhere else.
    func creationError(in parent: UInt64) -> Errno {
        parent == current.table.pickedInode && picks != nil ? .permissionDenied : .readOnlyFileSystem
    }

    /// The photo a link target names: a path inside the mount (absolute, or relative to
    /// `picked/`) to a photo file in any view, a thumbnail, or another pick.
    func resolvePhoto(_ target: String, _ s: TreeView) -> Result<Int, Errno> {
        var path: [String]
        var rest: Substring
        if target.hasPrefix("/") {
            guard let mountpoint, target == mountpoint || target.hasPrefix(mountpoint + "/") else { return .failure(.invalidArgument) }
            path = []
            rest = target.dropFirst(mountpoint.count)
        } else {
            path = [LibraryViews.picked]
            rest = Substring(target)
        }
        for part in rest.split(separator: "/") {
            switch part {
            case ".": continue
            case "..":
                guard !path.isEmpty else { return .failure(.invalidArgument) }  // leaves the mount
                path.removeLast()
            default: path.append(String(part))
            }
        }
        var node = s.table[NodeTable.rootInode]!
        for (i, name) in path.enumerated() {
            if node.inode == s.table.pickedInode {
                // Through another pick: its photo, if the link is the last part.
                guard i == path.count - 1, let pick = picks?.pick(named: name),
                      let photo = s.table.photo(source: pick.sourcePath) else { return .failure(.invalidArgument) }
                return .success(photo)
            }
            if let found = filters.child(of: node.inode, named: name, s) {
                guard case .success(let next) = found else { return .failure(.invalidArgument) }
                node = next
                continue
            }
            guard let folder = s.table.folders[node.inode], let next = s.table.child(of: folder, named: name) else {
                return .failure(.invalidArgument)
            }
            node = next
        }
        guard case .file(let content) = node.kind, let photo = content.photo else { return .failure(.invalidArgument) }
        return .success(photo)
    }
}
