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
    // The current library and its node table; replaced whole by `update`.
    private let snapshot: Locked<(library: Library, table: NodeTable)>
    let files = HandleTable<OpenFile>()
    /// Originals each user other than the mounting one holds open.
    let handleQuota = HandleQuota()
    /// Where lost picks' candidates are hashed, one search at a time, off the thread that swaps trees.
    let pickSearch = DispatchQueue(label: "albumfs.pick-search", qos: .utility)
    /// What `.albumfs/status` and `errors` show, shared by their opens.
    let controlTexts = ControlTexts()
    /// The folders below `filter/` found so far (`AlbumFileSystem+Filters`).
    let filters = FilterFolders()
    let thumbnails: ThumbnailProvider?
    /// Bytes of originals read through the mount (`.albumfs/status`: what file managers and
    /// scripts read).
    public let originalBytesRead = Atomic<Int>(0)
    /// Tells the kernel what changed outside a tree publish (a thumbnail that left its listing);
    /// set once the session runs (`setInvalidator`).
    let invalidator = Locked<(@Sendable (TreeChanges) -> Void)?>(nil)
    /// Thumbnails written for desktop file managers when a folder of photos is listed (`-o desktop_thumbnails`).
    let desktopThumbnails: DesktopThumbnailing?
    private let status: StatusReporter?
    /// The open listings, by handle (`AlbumFileSystem+Directories`).
    let directories = HandleTable<DirectoryListing>()
    let problems: OnceLog
    /// The last thumbnail opened in each thumbnails folder, to guess what a reader reads next;
    /// held only while one open is noted.
    let readAhead = Locked(ReadAhead())
    /// Told of a photo's file found changed or replaced at an open (`openScanned`).
    let staleFile = Locked<(@Sendable (String) -> Void)?>(nil)
    /// False while the library cannot be scanned (its folder gone, or its disk not mounted: an
    /// empty folder is left): the views keep its photos, and opening one answers EIO.
    let libraryAvailable = Atomic<Bool>(true)
    /// Whether the library's storage is stalled (`isSourceStalled`), and the number of the change
    /// that said so (changes may be told out of order: `setSourceStalled`).
    let sourceStall = Locked<(stalled: Bool, change: UInt64)>((false, 0))
    /// Where the daemon's lines go (the log given at init).
    let logLine: @Sendable (String) -> Void
    /// Changes in SOURCE the tree may not show yet: told by whoever follows the library, waited on
    /// (`followingMoves`) when a photo's file is not at its path.
    public let pendingChanges = PendingChanges()
    /// How long an open, a thumbnail's render or a pick waits for the tree that shows where a
    /// photo's file went: the 2 s for a change to show (docs/errno.md).
    static let movedFileWait = 2.0

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
        self.problems = OnceLog(sink: log)
        logLine = log
        let table = NodeTable(library: library, inodes: inodes)
        self.snapshot = Locked((library, table))
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
        let table = NodeTable(library: library, inodes: inodes, renamed: renamed, previous: current.table)
        let old = snapshot.withLock { s -> (library: Library, table: NodeTable) in
            let previous = s
            s = (library, table)
            return previous
        }
        // (After the swap, not under its lock: a filter folder being built holds `filters`' lock.)
        let filterEntries = filters.libraryChanged(library)
        pendingChanges.treePublished()
        if complete { followMovedPicks((library, table), previous: old, renamed: renamed) }
        var changes = TreeChanges.between(old.table, table)
        // Filter folders are built again for the new tree when next asked for: the kernel drops
        // their listings and attributes.
        changes.changedInodes += filters.inodes
        changes.removedEntries += filterEntries
        return changes
    }

    var current: (library: Library, table: NodeTable) { snapshot.withLock { $0 } }

    /// The tree shown now.
    public var library: Library { snapshot.withLock { $0.library } }
    /// The mount point's real path: absolute link targets into the mount are resolved against it.
    let mountpoint: String?
    let picks: PickRegistry?
    /// The clock picks are stamped with (replaceable in tests).
    let clock: @Sendable () -> Timestamp

    /// Told by whoever scans the library (docs/status.md, "A library that cannot be listed").
    public func setLibraryAvailable(_ available: Bool) { libraryAvailable.store(available, ordering: .relaxed) }

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
        guard let dir = s.table[parent] else { return .failure(.notFound) }
        guard let folder = s.table.folders[parent] else { return .failure(.notDirectory) }
        if FileNameBytes.count(name) > EntryNames.maxBytes { return .failure(.nameTooLong) }
        if name == "." { return .success(attributes(dir, s)) }
        if name == ".." { return s.table[dir.parent].map { .success(attributes($0, s)) } ?? .failure(.notFound) }
        if parent == s.table.pickedInode {
            guard let pick = picks?.pick(named: name) else { return .failure(.notFound) }
            return .success(linkAttributes(pick, s))
        }
        guard let node = s.table.child(of: folder, named: name), !isHidden(node, s) else { return .failure(.notFound) }
        return .success(attributes(node, s))
    }

    /// How the kernel is told of changes made between publishes (the FUSE session's
    /// notifications).
    public func setInvalidator(_ body: @escaping @Sendable (TreeChanges) -> Void) {
        invalidator.withLock { $0 = body }
    }

    /// The corresponding FUSE operation is `getattr`.
    public func attributes(of inode: UInt64) -> Result<Attributes, Errno> {
        let s = current
        if let node = s.table[inode] { return isHidden(node, s) ? .failure(.notFound) : .success(attributes(node, s)) }
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

    func attributes(_ node: Node, _ s: (library: Library, table: NodeTable)) -> Attributes {
        if node.inode == s.table.pickedInode { return pickedFolderAttributes(node, s) }
        switch node.kind {
        case .folder(let folder):
            return Attributes(inode: node.inode, kind: .directory, permissions: owner.mode(0o555),
                              linkCount: UInt32(2 + folder.subfolders.count), size: 4096, mtime: node.mtime,
                              uid: owner.uid, gid: owner.gid)
        case .file(let content):
            let size: Int64
            var links: UInt32 = 1
            var shown = (permissions: owner.mode(0o444), uid: owner.uid, gid: owner.gid)
            switch content {
            case .original(let i):
                size = s.library.photos[i].isEmbeddedVideo ? s.library.photos[i].motionVideo!.length : s.library.photos[i].identity.size
                shown = owner.photoEntry(s.library.photos[i].access, thumbnail: false)
                links = s.table.viewCount(ofPhoto: i)
            case .thumbnail(let i, let box):
                size = thumbnails?.size(for: box) ?? 0
                shown = owner.photoEntry(s.library.photos[i].access, thumbnail: true)
            // Made fresh for each look; read with direct I/O so a grown text is never cut short.
            // Only the mounting user (and root) may read them: they name the library's files.
            case .status, .errors, .notShown:
                size = Int64(controlBytes(content).count)
                shown.permissions = owner.mode(0o400)
            case .filterReadme:
                size = Int64(FilterReadme.bytes.count)
            }
            // With desktop thumbnails, whole seconds: tumbler (Thunar) holds a thumbnail current only
            // when its `Thumb::MTime` equals the file's mtime to the microsecond, and GLib holds one
            // with a fraction there invalid (the specification's is whole seconds).
            let mtime = desktopThumbnails == nil ? node.mtime : Timestamp(seconds: node.mtime.seconds)
            return Attributes(inode: node.inode, kind: .regular, permissions: shown.permissions, linkCount: links, size: size,
                              mtime: mtime, uid: shown.uid, gid: shown.gid)
        }
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

    /// Whether reads of this inode must bypass the kernel's page cache (content made at open).
    public func needsDirectIO(_ inode: UInt64) -> Bool {
        guard let node = current.table[inode], case .file(let content) = node.kind else { return false }
        return content.isControl
    }

    /// The corresponding FUSE operation is `open`. Opening for writing answers EROFS; `.albumfs/`
    /// by anyone but the mounting user and root, EACCES; an original by a user who holds
    /// `HandleQuota.limit` open already, EMFILE.
    /// - Parameter caller: the user asking (the kernel's request context).
    public func open(_ inode: UInt64, flags: Int32, caller: UInt32 = 0) -> Result<UInt64, Errno> {
        let tree = pendingChanges.tree
        let s = current
        // The kernel follows links itself; a link reached here was opened with O_NOFOLLOW.
        if picks?.pick(inode: inode) != nil { return .failure(Errno(rawValue: ELOOP)) }
        // (A thumbnail no longer listed is gone for an open too: the kernel may still hold its
        // entry, as the notice that drops it is sent off the request thread.)
        guard let node = s.table[inode], !isHidden(node, s) else { return .failure(.notFound) }
        guard case .file(let content) = node.kind else { return .failure(.isDirectory) }
        if flags & O_ACCMODE != O_RDONLY || flags & (O_TRUNC | O_APPEND | O_CREAT) != 0 {
            return .failure(.readOnlyFileSystem)
        }
        switch content {
        case .original(let i):
            let counted = owner.isPrivileged(caller) ? nil : caller
            if let counted, !handleQuota.take(counted) { return .failure(Errno(rawValue: EMFILE)) }
            let opened = openOriginal(inode, s.library.photos[i], tree: tree, holder: counted)
            if let counted, case .failure = opened { handleQuota.give(counted) }
            return opened
        case .thumbnail(let i, let box):
            thumbnailOpened(node, box: box, s)
            return .success(files.insert(.thumbnail(OpenThumbnail(inode: inode, photo: s.library.photos[i], box: box))))
        case .status, .errors, .notShown:
            guard owner.isPrivileged(caller) else { return .failure(.accessDenied) }
            return .success(files.insert(.text(controlBytes(content))))
        case .filterReadme:
            return .success(files.insert(.text(FilterReadme.bytes)))
        }
    }

    /// Whether a read of this handle may wait on slow work (a thumbnail not rendered yet).
    public func readMayWait(_ handle: UInt64) -> Bool {
        guard case .thumbnail(let thumb)? = files.get(handle) else { return false }
        return thumb.bytes.withLock { $0 == nil }
    }

    /// The corresponding FUSE operation is `read`: up to `buffer.count` bytes at `offset`.
    public func read(_ handle: UInt64, at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        switch files.get(handle) {
        case nil: return .failure(.badFileDescriptor)
        case .original(let file)?: return read(file, at: offset, into: buffer)
        case .thumbnail(let thumb)?: return read(thumb, at: offset, into: buffer)
        case .text(let bytes)?: return copy(bytes, at: offset, into: buffer)
        }
    }

    private func copy(_ bytes: [UInt8], at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        guard offset < Int64(bytes.count) else { return .success(0) }
        let n = min(buffer.count, bytes.count - Int(offset))
        bytes.withUnsafeBytes { src in
            buffer.baseAddress!.copyMemory(from: src.baseAddress! + Int(offset), byteCount: n)
        }
        return .success(n)
    }

    private func read(_ thumb: OpenThumbnail, at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        let bytes: [UInt8]
        if let ready = thumb.bytes.withLock({ $0 }) {
            bytes = ready
        } else {
            guard let thumbnails else { return .failure(.ioError) }
            // The photo as the tree shows it now (its folder may have been renamed since the open).
            let tree = pendingChanges.tree
            let photo = shownPhoto(inode: thumb.inode) ?? thumb.photo
            // The source is opened once, by the render; a file not at its path is followed to
            // where the next tree shows it, or it is gone.
            let made = followingMoves(photo, tree: tree, shown: { shownPhoto(inode: thumb.inode) }) { photo in
                thumbnails.thumbnail(of: photo, sourceRoot: sourceRoot, box: thumb.box)
            }
            switch made.result {
            case .failure(.notFound):
                // Gone, or not the file scanned (replaced, rewritten): rescanned, as an open's is.
                reportStale(made.photo)
                problems.log("thumbnail:" + made.photo.relativePath,
                             "albumfs: cannot make a thumbnail of \(made.photo.relativePath): cannot open the original: \(Errno.notFound)")
                return .failure(.ioError)
            case .failure(let e):
                thumbnailFailed(thumb.inode)
                return .failure(e)
            case .success(let b):
                bytes = b
                thumb.bytes.withLock { $0 = b }
            }
        }
        return copy(bytes, at: offset, into: buffer)
    }

    private func read(_ file: OpenOriginal, at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        let (at, count) = file.sourceRead(at: offset, count: buffer.count)
        guard let base = buffer.baseAddress, count > 0 else { return .success(0) }
        let (filled, error) = PositionalRead.fill(file.fd, into: base, count: count, at: at)
        if let error {
            problems.log("read:" + file.relativePath, "albumfs: cannot read \(file.relativePath): \(error)")
            return .failure(.ioError)
        }
        originalBytesRead.add(filled, ordering: .relaxed)
        return .success(filled)
    }

    /// The corresponding FUSE operation is `release`.
    public func release(_ handle: UInt64) {
        if case .original(let file)? = files.remove(handle), let holder = file.holder { handleQuota.give(holder) }
    }

    /// Open file handles (for leak checks in tests).
    public var openFileCount: Int { files.count }

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
        guard case .file(let content) = node.kind else { return .success([]) }
        guard let photo = content.photo else { return .success([]) }
        let partner = s.library.livePartners[Int32(photo)].flatMap { s.table.canonicalPath(ofPhoto: Int($0)) }
        let raw = s.library.rawPartners[Int32(photo)].flatMap { s.table.canonicalPath(ofPhoto: Int($0)) }
        return .success(ExtendedAttributes.of(s.library.photos[photo], sourceRoot: sourceRoot, livePartner: partner, rawPartner: raw))
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
