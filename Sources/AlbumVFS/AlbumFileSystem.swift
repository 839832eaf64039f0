import AlbumCore
import Dispatch
import AlbumSystem
import Glibc
import Synchronization

/// The mounted filesystem in POSIX terms: inodes, entries, attributes and errno, with no FUSE.
///
/// Every operation returns `Result<_, Errno>`; the FUSE adapter turns each into one reply. The
/// tree is an immutable snapshot swapped as a whole, so readers never wait on a rebuild.
public final class AlbumFileSystem: Sendable {
    public let sourceRoot: String
    public let owner: Owner
    let inodes: InodeAllocator
    // The published tree: replaced whole by `update`, and by `hideThumbnails` when a
    // thumbnail leaves its listing.
    private let snapshot: Locked<TreeView>
    /// The files behind the tree: handles, SOURCE, thumbnails' reads, the storage's state.
    public let sources: SourceFiles
    /// Where lost picks' candidates are hashed, one search at a time, off the thread that swaps trees.
    let pickSearch = DispatchQueue(label: "albumfs.pick-search", qos: .utility)
    /// What `.albumfs/status` and `errors` show, shared by their opens.
    let controlTexts = ControlTexts()
    /// The folders below `filter/` found so far (`AlbumFileSystem+Filters`).
    let filters = FilterFolders()
    let thumbnails: ThumbnailProvider?
    /// Tells the kernel what changed outside a tree publish (a thumbnail that left its listing);
    /// set once the session runs (`setInvalidator`).
    let invalidator = Locked<(@Sendable (TreeChanges) -> Void)?>(nil)
    /// Thumbnails written for desktop file managers when a folder of photos is listed (`-o desktop_thumbnails`).
    let desktopThumbnails: DesktopThumbnailing?
    private let status: StatusReporter?
    /// The open listings, by handle (`AlbumFileSystem+Directories`).
    let directories = HandleTable<DirectoryListing>()
    /// The last thumbnail opened in each thumbnails folder, to guess what a reader reads next;
    /// held only while one open is noted.
    let readAhead = Locked(ReadAhead())
    /// Changes in SOURCE the tree may not show yet, and the trees published: counted by whoever
    /// follows the library, waited on (`SourceFiles.followingMoves`) when a photo's file is not
    /// at its path.
    public let pendingChanges: PendingChanges

    /// - Parameter log: where read problems are reported (once per file).
    /// - Parameters:
    ///   - picks: where `picked/` persists; nil for a tree without `picked/`.
    ///   - maxPicks: `-o max_picks` (nil: no limit).
    public init(library: Library, sourceRoot: String, owner: Owner, thumbnails: ThumbnailProvider? = nil,
                desktopThumbnails: DesktopThumbnailing? = nil,
                status: StatusReporter? = nil, picks: PickStorage? = nil, maxPicks: Int? = nil, mountpoint: String? = nil,
                clock: @escaping @Sendable () -> Timestamp = { Timestamp.now }, log: @escaping @Sendable (String) -> Void) throws(Errno) {
        self.mountpoint = mountpoint
        self.clock = clock
        let inodes = InodeAllocator()
        self.inodes = inodes
        self.picks = try picks.map { storage throws(Errno) in try PickRegistry(storage: storage, limit: maxPicks, inodes: inodes) }
        self.sourceRoot = sourceRoot
        self.thumbnails = thumbnails
        self.desktopThumbnails = desktopThumbnails
        self.status = status
        self.owner = owner
        let pending = PendingChanges()
        self.pendingChanges = pending
        self.sources = SourceFiles(sourceRoot: sourceRoot, thumbnails: thumbnails, pendingChanges: pending, log: log)
        let table = NodeTable(library: library, inodes: inodes)
        let presentation = TreePresentation(owner: owner, sourceRoot: sourceRoot,
                                            thumbnailSizes: Dictionary((thumbnails?.boxes ?? []).map { ($0, thumbnails!.size(for: $0)) },
                                                                       uniquingKeysWith: { first, _ in first }),
                                            wholeSecondMtimes: desktopThumbnails != nil)
        let first = TreeView(library: library, table: table, presentation: presentation)
        self.snapshot = Locked(first.hiding(Self.unrenderablePhotos(thumbnails, inodes, first)))
        _ = filters.libraryChanged(library)
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
        let shown = current
        let table = NodeTable(library: library, inodes: inodes, renamed: renamed, previous: shown.table)
        let next = TreeView(library: library, table: table, hiddenVersion: shown.hiddenVersion, presentation: shown.presentation)
        let hidden = Self.unrenderablePhotos(thumbnails, inodes, next)
        let (old, new) = snapshot.withLock { s -> (TreeView, TreeView) in
            let previous = s
            // (A thumbnail that left its listing meanwhile, `hideThumbnails`, is found again here:
            // rare, so the lock is held for it only then.)
            let found = s.hiddenVersion == shown.hiddenVersion ? hidden : Self.unrenderablePhotos(thumbnails, inodes, next)
            s = TreeView(library: library, table: table, hiddenVersion: s.hiddenVersion, presentation: s.presentation).hiding(found)
            return (previous, s)
        }
        // (After the swap, not under its lock: a filter folder being built holds `filters`' lock.)
        let filterEntries = filters.libraryChanged(library)
        pendingChanges.treePublished()
        if complete { followMovedPicks(new, previous: old, renamed: renamed) }
        var changes = TreeChanges.between(old.table, table)
        // Filter folders are built again for the new tree when next asked for: the kernel drops
        // their listings and attributes.
        changes.changedInodes += filters.inodes
        changes.removedEntries += filterEntries
        return changes
    }

    /// The tree published now.
    var current: TreeView { snapshot.withLock { $0 } }

    /// Publishes the tree with the thumbnails the service holds unrenderable now not listed.
    func hideThumbnails() {
        snapshot.withLock { s in s = s.hiding(Self.unrenderablePhotos(thumbnails, inodes, s)) }
    }

    /// The tree shown now.
    public var library: Library { snapshot.withLock { $0.library } }
    /// The mount point's real path: absolute link targets into the mount are resolved against it.
    let mountpoint: String?
    let picks: PickRegistry?
    /// The clock picks are stamped with (replaceable in tests).
    let clock: @Sendable () -> Timestamp

    /// Told by whoever scans the library (docs/status.md, "A library that cannot be listed").
    public func setLibraryAvailable(_ available: Bool) { sources.libraryAvailable.store(available, ordering: .relaxed) }

    /// The photo the views show now for this source file (relative to SOURCE), if any.
    public func shownPhoto(_ relativePath: String) -> Photo? {
        let s = current
        return s.table.photo(source: relativePath).map { s.library.photos[$0] }
    }

    // MARK: Names and attributes

    /// The corresponding FUSE operation is `lookup`.
    public func lookup(parent: UInt64, name: String) -> Result<Attributes, Errno> {
        let s = current
        if let found = filterChild(of: parent, named: name, s) { return found.map { attributes($0, s) } }
        if parent == s.table.pickedInode, name != ".", name != "..", FileNameBytes.count(name) <= EntryNames.maxBytes {
            guard let pick = picks?.pick(named: name) else { return .failure(.notFound) }
            return .success(linkAttributes(pick, s))
        }
        return s.lookup(parent: parent, name: name).map { attributes($0, s) }
    }

    /// How the kernel is told of changes made between publishes (the FUSE session's
    /// notifications).
    public func setInvalidator(_ body: @escaping @Sendable (TreeChanges) -> Void) {
        invalidator.withLock { $0 = body }
    }

    /// The corresponding FUSE operation is `getattr`.
    public func attributes(of inode: UInt64) -> Result<Attributes, Errno> {
        let s = current
        if let node = s.table[inode] { return s.isHidden(node) ? .failure(.notFound) : .success(attributes(node, s)) }
        if let node = filterNode(inode, s) { return .success(attributes(node, s)) }
        if let pick = picks?.pick(inode: inode) { return .success(linkAttributes(pick, s)) }
        return .failure(.notFound)
    }

    /// The corresponding FUSE operation is `access`: what each node's permission bits say.
    /// Writing is refused with EROFS (a read-only tree, as `open` for writing answers) except
    /// where the bits allow it (`picked/`); executing a photo is EACCES.
    public func checkAccess(_ inode: UInt64, mask: Int32) -> Result<Void, Errno> {
        attributes(of: inode).flatMap { a in
            // (A photo may show its source's write bits; only `picked/` takes changes.)
            let writable = inode == current.table.pickedInode && a.permissions & 0o222 != 0
            if mask & W_OK != 0 && !writable { return .failure(.readOnlyFileSystem) }
            if mask & X_OK != 0 && a.permissions & 0o111 == 0 { return .failure(.accessDenied) }
            return .success(())
        }
    }

    /// A node's attributes: `picked/`'s from the picks, `.albumfs/` texts' sizes made now, the
    /// rest from the tree.
    func attributes(_ node: Node, _ s: TreeView) -> Attributes {
        if node.inode == s.table.pickedInode { return pickedFolderAttributes(node, s) }
        return s.attributes(node) { Int64(controlBytes($0).count) }
    }

    // MARK: Files

    private func controlBytes(_ content: FileContent) -> [UInt8] {
        switch content {
        case .status: return controlTexts.shared("status", status?.statusText() ?? "")
        case .errors: return controlTexts.shared("errors", status?.errorsText() ?? "")
        // (Not logged: the status's counts are what covers every line.)
        case .notShown: return controlTexts.shared("not-shown", status?.notShownText() ?? "", rest: ControlTexts.notShownRest)
        default: return []
        }
    }

    /// The corresponding FUSE operation is `open`. Opening for writing answers EROFS; `.albumfs/`
    /// by anyone but the mounting user and root, EACCES; an original by a user who holds
    /// `HandleQuota.limit` open already, EMFILE. The answer says how the kernel caches the file
    /// and how its reads are served (`OpenedFile`).
    /// - Parameter caller: the user asking (the kernel's request context).
    public func open(_ inode: UInt64, flags: Int32, caller: UInt32 = 0) -> Result<OpenedFile, Errno> {
        let tree = sources.following.publishedTree
        let s = current
        // The kernel follows links itself; a link reached here was opened with O_NOFOLLOW.
        if picks?.pick(inode: inode) != nil { return .failure(Errno(rawValue: ELOOP)) }
        // (A thumbnail no longer listed is gone for an open too: the kernel may still hold its
        // entry, as the notice that drops it is sent off the request thread.)
        guard let node = s.node(inode) else { return .failure(.notFound) }
        guard case .file(let content) = node.kind else { return .failure(.isDirectory) }
        if flags & O_ACCMODE != O_RDONLY || flags & (O_TRUNC | O_APPEND | O_CREAT) != 0 {
            return .failure(.readOnlyFileSystem)
        }
        switch content {
        case .original(let i):
            let counted = owner.isPrivileged(caller) ? nil : caller
            if let counted, !sources.handleQuota.take(counted) { return .failure(Errno(rawValue: EMFILE)) }
            let opened = sources.openOriginal(s.library.photos[i], tree: tree, holder: counted) { shownPhoto(inode: inode) }
            if let counted, case .failure = opened { sources.handleQuota.give(counted) }
            return opened.map { OpenedFile(handle: $0, cache: .keep, reads: .source) }
        case .thumbnail(let i, let box):
            thumbnailOpened(node, box: box, s)
            let handle = sources.files.insert(.thumbnail(OpenThumbnail(inode: inode, photo: s.library.photos[i], box: box)))
            return .success(OpenedFile(handle: handle, cache: .keep, reads: .render))
        case .status, .errors, .notShown:
            guard owner.isPrivileged(caller) else { return .failure(.accessDenied) }
            return .success(OpenedFile(handle: sources.files.insert(.text(controlBytes(content))), cache: .direct, reads: .inline))
        case .filterReadme:
            return .success(OpenedFile(handle: sources.files.insert(.text(FilterReadme.bytes)), cache: .keep, reads: .inline))
        }
    }

    /// Where a read of this handle runs now: a thumbnail's turns `inline` once it is made.
    public func readService(_ handle: UInt64) -> ReadService { sources.readService(handle) }

    /// The corresponding FUSE operation is `read`: up to `buffer.count` bytes at `offset`.
    public func read(_ handle: UInt64, at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        sources.read(handle, at: offset, into: buffer, shown: { shownPhoto(inode: $0) }, unrenderable: { thumbnailFailed($0) })
    }

    /// The corresponding FUSE operation is `release`.
    public func release(_ handle: UInt64) { sources.release(handle) }

    /// Open file handles (for leak checks in tests).
    public var openFileCount: Int { sources.files.count }

    /// The handles open now (tests reach them).
    var files: HandleTable<OpenFile> { sources.files }

    // MARK: Extended attributes

    /// The corresponding FUSE operation is `getxattr`.
    ///
    /// Only the `user.` namespace exists here. Any other (`system.posix_acl_access`,
    /// `security.selinux`, `trusted.*`) answers EOPNOTSUPP, as ext4 mounted `noacl` does:
    /// `ls -l` asks both of those for every entry, and remembers an EOPNOTSUPP for the whole
    /// device (coreutils' `file_has_acl_cache` / `getfilecon_cache`) where an ENODATA costs two
    /// FUSE round trips per file (docs/xattrs.md).
    public func extendedAttribute(_ inode: UInt64, name: String) -> Result<[UInt8], Errno> {
        switch extendedAttributes(inode) {
        case .failure(let e): return .failure(e)
        case .success where !name.hasPrefix(ExtendedAttributes.namespace): return .failure(.notSupported)
        case .success(let list):
            guard let value = list.first(where: { $0.0 == name })?.1 else { return .failure(.noAttribute) }
            // (Values hold paths and names: their bytes, as the files have them.)
            return .success(FileNameBytes.bytes(value))
        }
    }

    /// The corresponding FUSE operation is `listxattr`.
    public func extendedAttributeNames(_ inode: UInt64) -> Result<[String], Errno> {
        extendedAttributes(inode).map { $0.map(\.0) }
    }

    private func extendedAttributes(_ inode: UInt64) -> Result<[(String, String)], Errno> {
        let s = current
        if picks?.pick(inode: inode) != nil { return .success([]) }
        guard let node = s.table[inode] ?? filterNode(inode, s) else { return .failure(.notFound) }
        return .success(s.extendedAttributes(node))
    }

    // MARK: Filesystem

    /// The corresponding FUSE operation is `statfs`: the figures of the filesystem SOURCE is on,
    /// as passthrough filesystems, sshfs and mergerfs answer, with albumfs's own name limit; all
    /// zero while SOURCE cannot be asked. (Before, the library's size with nothing free, which
    /// reads as a full disk: GNOME's housekeeping warns of low disk space on such a mount, since
    /// it passes over only read-only and zero-sized ones, and `picked/` takes links.)
    public func statistics() -> FileSystemStatistics {
        var st = statvfs()
        guard statvfs(sourceRoot, &st) == 0 else {
            return FileSystemStatistics(blockSize: 4096, blocks: 0, freeBlocks: 0, availableBlocks: 0, files: 0, freeFiles: 0,
                                        nameMax: UInt64(EntryNames.maxBytes))
        }
        return FileSystemStatistics(blockSize: UInt64(st.f_frsize), blocks: UInt64(st.f_blocks), freeBlocks: UInt64(st.f_bfree),
                                    availableBlocks: UInt64(st.f_bavail), files: UInt64(st.f_files), freeFiles: UInt64(st.f_ffree),
                                    nameMax: UInt64(EntryNames.maxBytes))
    }
}
