import AlbumCore
import AlbumSystem

/// The operations the FUSE adapter calls, one each, answered by the part that owns them.
extension AlbumFileSystem {
    /// The corresponding FUSE operation is `lookup`.
    public func lookup(parent: UInt64, name: String) -> Result<Attributes, Errno> { names.lookup(parent: parent, name: name) }

    /// The corresponding FUSE operation is `getattr`.
    public func attributes(of inode: UInt64) -> Result<Attributes, Errno> { names.attributes(of: inode) }

    /// The corresponding FUSE operation is `access` (`Namespace.checkAccess`).
    public func checkAccess(_ inode: UInt64, mask: Int32) -> Result<Void, Errno> { names.checkAccess(inode, mask: mask) }

    /// The corresponding FUSE operation is `getxattr` (`Namespace.extendedAttribute`).
    public func extendedAttribute(_ inode: UInt64, name: String) -> Result<[UInt8], Errno> { names.extendedAttribute(inode, name: name) }

    /// The corresponding FUSE operation is `listxattr`.
    public func extendedAttributeNames(_ inode: UInt64) -> Result<[String], Errno> { names.extendedAttributeNames(inode) }

    /// The corresponding FUSE operation is `statfs` (`SourceFiles.statistics`).
    public func statistics() -> FileSystemStatistics { sources.statistics() }

    // MARK: Files

    /// The corresponding FUSE operation is `open` (`FileOpens.open`): one answer, `OpenedFile`,
    /// saying how the kernel caches the file and how its reads are served; an original's open
    /// waits on the storage under `storage` (nil: the request was answered there).
    /// - Parameter caller: the user asking (the kernel's request context).
    public func open(_ inode: UInt64, flags: Int32, caller: UInt32 = 0, storage: any StorageWait) -> Result<OpenedFile, Errno>? {
        opens.open(inode, flags: flags, caller: caller, storage: storage)
    }

    /// `open` with no deadline on the storage.
    public func open(_ inode: UInt64, flags: Int32, caller: UInt32 = 0) -> Result<OpenedFile, Errno> {
        opens.open(inode, flags: flags, caller: caller, storage: NoStorageDeadline()) ?? .failure(.ioError)
    }

    /// Where a read of this handle runs now: a thumbnail's turns `inline` once it is made.

    /// The corresponding FUSE operation is `read`: up to `buffer.count` bytes at `offset`.
    public func read(_ handle: UInt64, at offset: Int64, into buffer: UnsafeMutableRawBufferPointer,
                     storageStalled: Bool = false) -> Result<Int, Errno> {
        opens.read(handle, at: offset, into: buffer, storageStalled: storageStalled)
    }

    /// The corresponding FUSE operation is `release`.
    public func release(_ handle: UInt64) { opens.release(handle) }

    /// Open file handles (for leak checks in tests).
    public var openFileCount: Int { sources.files.count }

    // MARK: Folders

    /// The corresponding FUSE operation is `opendir` (`Listings.openDirectory`).
    public func openDirectory(_ inode: UInt64, caller: UInt32 = 0) -> Result<UInt64, Errno> { listings.openDirectory(inode, caller: caller) }

    /// As `openDirectory`, answered through `answer`, maybe later (`Listings.openDirectory`).
    public func openDirectory(_ inode: UInt64, caller: UInt32, answer: @escaping @Sendable (Result<UInt64, Errno>) -> Void) {
        listings.openDirectory(inode, caller: caller, answer: answer)
    }

    /// The corresponding FUSE operation is `readdirplus`.
    public func readDirectory(_ handle: UInt64, from offset: Int, limit: Int = .max) -> Result<[DirectoryEntry], Errno> {
        listings.readDirectory(handle, from: offset, limit: limit)
    }

    /// The corresponding FUSE operation is `readdir`.
    public func readDirectoryNames(_ handle: UInt64, from offset: Int, limit: Int = .max) -> Result<[DirectoryName], Errno> {
        listings.readDirectoryNames(handle, from: offset, limit: limit)
    }

    /// The corresponding FUSE operation is `releasedir`.
    public func releaseDirectory(_ handle: UInt64) { listings.releaseDirectory(handle) }

    /// Whether the kernel may cache this directory's listing (not `picked/`, which changes).
    public func isStaticDirectory(_ inode: UInt64) -> Bool { listings.isStatic(inode) }

    /// After a scan, with desktop thumbnails on (`Listings.fillDesktopThumbnailsAhead`).
    public func fillDesktopThumbnailsAhead() { listings.fillDesktopThumbnailsAhead() }

    /// The names below `filter/` that were no expression, newest last (`.albumfs/errors`).
    public var filterErrors: [(path: String, message: String)] { names.filters.errors }

    // MARK: picked/

    /// How many photos `picked/` holds.
    public var pickCount: Int { names.picked.count }

    /// The corresponding FUSE operation is `readlink`.
    public func readlink(_ inode: UInt64) -> Result<String, Errno> { names.picked.readlink(inode) }

    /// The corresponding FUSE operation is `symlink` (`PickedFolder.symlink`).
    public func symlink(parent: UInt64, name: String, target: String, caller: UInt32 = 0) -> Result<Attributes, Errno> {
        names.picked.symlink(parent: parent, name: name, target: target, caller: caller)
    }

    /// The corresponding FUSE operation is `unlink`: `rm picked/NAME` unpicks.
    public func unlink(parent: UInt64, name: String, caller: UInt32 = 0) -> Result<Void, Errno> {
        // Nothing else may be removed; a missing name is still "not found".
        guard names.picked.takesChanges(in: parent) else { return lookup(parent: parent, name: name).flatMap { _ in .failure(.readOnlyFileSystem) } }
        return names.picked.unlink(name: name, caller: caller)
    }

    /// The corresponding FUSE operation is `rename` (`PickedFolder.rename`).
    public func rename(parent: UInt64, name: String, newParent: UInt64, newName: String, flags: UInt32, caller: UInt32 = 0) -> Result<Void, Errno> {
        names.picked.rename(parent: parent, name: name, newParent: newParent, newName: newName, flags: flags, caller: caller)
    }

    /// What `mknod`, `mkdir`, `create` and `link` answer (`PickedFolder.creationError`).
    public func creationError(in parent: UInt64) -> Errno { names.picked.creationError(in: parent) }

    /// Waits until the searches for lost picks asked for so far have ended (tests).
    public func waitForPickSearches() { names.picked.waitForSearches() }

    // MARK: The library's storage

    /// Told by whoever answers requests with a deadline (`-o source_timeout`), which owns the
    /// storage's state: the storage stopped answering (a request waited `seconds` for it), or
    /// answers again; `change` numbers the changes (one told late is ignored). Each change is logged.
    public func sourceStallChanged(_ stalled: Bool, change: UInt64, seconds: Double) {
        sources.stallChanged(stalled, change: change, seconds: seconds)
    }

    // MARK: For the tests

    /// The tree published now.
    var current: TreeView { tree.current }
    /// The handles open now.
    var files: HandleTable<OpenFile> { sources.files }
    /// The folders below `filter/` found so far.
    var filters: FilterFolders { names.filters.folders }
    /// The picks `picked/` holds.
    var picks: PickRegistry? { names.picked.picks }
}
