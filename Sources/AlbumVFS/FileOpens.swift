import AlbumCore
import AlbumSystem
import Glibc

/// Opens, reads and releases of files: the node found in the published tree, then served by
/// what holds its bytes: an original by `SourceFiles` (beneath SOURCE, under the caller's
/// storage deadline), a thumbnail by `SourceFiles` at its first read, a text of `.albumfs/` by
/// `ControlFiles` at the open.
final class FileOpens: Sendable {
    let names: Namespace
    let sources: SourceFiles
    let thumbnails: ThumbnailReads
    let owner: Owner

    init(names: Namespace, sources: SourceFiles, thumbnails: ThumbnailReads, owner: Owner) {
        self.names = names
        self.sources = sources
        self.thumbnails = thumbnails
        self.owner = owner
    }

    /// The corresponding FUSE operation is `open`. Opening for writing answers EROFS; `.albumfs/`
    /// by anyone but the mounting user and root, EACCES; an original by a user who holds
    /// `HandleQuota.limit` open already, EMFILE. An original's open waits on the library's
    /// storage: it runs under `storage` (nil: the request was answered there, EIO).
    func open(_ inode: UInt64, flags: Int32, caller: UInt32, storage: any StorageWait) -> Result<OpenedFile, Errno>? {
        let published = sources.following.publishedTree
        let s = names.tree.current
        // The kernel follows links itself; a link reached here was opened with O_NOFOLLOW.
        if names.picked.isLink(inode) { return .failure(Errno(rawValue: ELOOP)) }
        // (A thumbnail no longer listed is gone for an open too: the kernel may still hold its
        // entry, as the notice that drops it is sent off the request thread.)
        guard let node = s.node(inode) else { return .failure(.notFound) }
        guard case .file(let content) = node.kind else { return .failure(.isDirectory) }
        switch content {
        case .original(let i):
            return storage.run({ openOriginal(s.library.photos[i], inode: inode, flags: flags, caller: caller, tree: published) },
                               late: { if case .success(let file) = $0 { release(file.handle) } })
        case _ where Self.writes(flags): return .failure(.readOnlyFileSystem)
        case .thumbnail(let i, let box):
            thumbnails.opened(node, box: box, s)
            let handle = sources.files.open(.thumbnail(OpenThumbnail(inode: inode, photo: s.library.photos[i], box: box)))
            return .success(OpenedFile(handle: handle, cache: .keep))
        case .status, .errors, .notShown:
            guard owner.isPrivileged(caller) else { return .failure(.accessDenied) }
            return .success(OpenedFile(handle: sources.files.open(.text(names.controls.bytes(content))), cache: .direct))
        case .filterReadme:
            return .success(OpenedFile(handle: sources.files.open(.text(FilterReadme.bytes)), cache: .keep))
        }
    }

    /// Whether open flags ask to write (or to create, truncate, append).
    private static func writes(_ flags: Int32) -> Bool {
        flags & O_ACCMODE != O_RDONLY || flags & (O_TRUNC | O_APPEND | O_CREAT) != 0
    }

    /// An original opened for `caller`, counted against its quota (the mounting user and root
    /// are not counted).
    private func openOriginal(_ photo: Photo, inode: UInt64, flags: Int32, caller: UInt32, tree: Int) -> Result<OpenedFile, Errno> {
        if Self.writes(flags) { return .failure(.readOnlyFileSystem) }
        let counted = owner.isPrivileged(caller) ? nil : caller
        if let counted, !sources.handleQuota.take(counted) { return .failure(Errno(rawValue: EMFILE)) }
        let opened = sources.openOriginal(photo, tree: tree, holder: counted) { names.tree.current.photo(inode: inode) }
        if let counted, case .failure = opened { sources.handleQuota.give(counted) }
        return opened.map { OpenedFile(handle: $0, cache: .keep) }
    }

    /// The corresponding FUSE operation is `read`: up to `buffer.count` bytes at `offset`. A
    /// thumbnail whose render failed from its photo's content leaves its listing here, once the
    /// read has its answer. (`storageStalled`: a thumbnail not made yet answers EIO at once.)
    func read(_ handle: UInt64, at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, storageStalled: Bool) -> Result<Int, Errno> {
        let made = sources.read(handle, at: offset, into: buffer, storageStalled: storageStalled) { names.tree.current.photo(inode: $0) }
        if let inode = made.unrenderable { thumbnails.failed(inode) }
        return made.result
    }

    /// The corresponding FUSE operation is `release`.
    func release(_ handle: UInt64) { sources.release(handle) }
}

/// Where an open that waits on the library's storage runs: under the FUSE adapter's deadline
/// (`-o source_timeout`), or with none.
public protocol StorageWait {
    /// Runs `work`, which waits on the storage; nil when the request was answered instead (EIO:
    /// the storage is stalled, or did not answer in time), `late` then getting what `work` made,
    /// to let it go.
    func run(_ work: () -> Result<OpenedFile, Errno>, late: (Result<OpenedFile, Errno>) -> Void) -> Result<OpenedFile, Errno>?
}

/// No deadline: the work runs, and its answer is the request's (tests, `albumfs index`).
public struct NoStorageDeadline: StorageWait {
    public init() {}
    public func run(_ work: () -> Result<OpenedFile, Errno>, late: (Result<OpenedFile, Errno>) -> Void) -> Result<OpenedFile, Errno>? {
        work()
    }
}
