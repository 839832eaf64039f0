import AlbumCore
import AlbumSystem
import Glibc

/// Reaching a photo's source file: opened beneath SOURCE and checked to be the file scanned,
/// followed when its folder was renamed in SOURCE, and which requests wait on the library's
/// storage (a stalled one: `-o source_timeout`) (docs/security.md, docs/errno.md).
extension AlbumFileSystem {
    /// Told by whoever answers requests with a deadline (`-o source_timeout`): the storage stopped
    /// answering (a request waited `seconds` for it), or answers again; `change` numbers the
    /// changes (one told late is ignored). Each change is logged.
    public func setSourceStalled(_ stalled: Bool, change: UInt64, seconds: Double) {
        let changed = sourceStall.withLock { s -> Bool in
            guard change > s.change else { return false }
            defer { s = (stalled, change) }
            return s.stalled != stalled
        }
        guard changed else { return }
        logLine(stalled ? "albumfs: \(sourceRoot) has not answered for \(Int(seconds)) s: reads of its files answer EIO until it does; listings answer from the index"
                        : "albumfs: \(sourceRoot) answers again")
    }

    /// True while a request that waited on the library's storage was answered EIO at its
    /// deadline and the storage has not answered it since (`-o source_timeout`): a server that
    /// stopped answering. The views still answer from what the index holds.
    public var isSourceStalled: Bool { sourceStall.withLock { $0.stalled } }

    /// Whether opening this inode opens a file of the library (an original), which a stalled
    /// storage may never answer.
    public func opensSource(_ inode: UInt64) -> Bool {
        guard let node = current.table[inode], case .file(.original) = node.kind else { return false }
        return true
    }

    /// Opens a photo's source file for the caller's reads (following a move: `followingMoves`).
    func openOriginal(_ inode: UInt64, _ photo: Photo, tree: Int, holder: UInt32? = nil) -> Result<UInt64, Errno> {
        let opened = followingMoves(photo, tree: tree, shown: { shownPhoto(inode: inode) }) { photo -> Result<Int32, Errno> in
            openScanned(photo, forUser: true).map(\.fd)
        }
        switch opened.result {
        case .success(let fd):
            let range = opened.photo.isEmbeddedVideo ? opened.photo.motionVideo : nil
            return .success(files.insert(.original(OpenOriginal(fd: fd, relativePath: opened.photo.sourcePath, holder: holder, range: range))))
        case .failure(let e):
            problems.log(sourceRoot + "/" + opened.photo.sourcePath, "albumfs: cannot open \(opened.photo.sourcePath): \(e)")
            // A vanished original is "not found"; anything else is the source's fault, not the
            // caller's: EIO (docs/errno.md). So is the whole library gone (a disk unplugged, a
            // share down: the views keep its photos), as sshfs answers when its server is,
            // whether its folder is gone or an empty one is left where the disk was mounted.
            let libraryThere = libraryAvailable.load(ordering: .relaxed) && access(sourceRoot, F_OK) == 0
            return .failure(e == .notFound && libraryThere ? .notFound : .ioError)
        }
    }

    /// A photo's file opened beneath SOURCE through no link, checked to be the file scanned
    /// (`SourceOpening.scanned`). Anything else there is ENOENT, and the file is handed to
    /// `staleFile` for a rescan: the views show the file the scan saw, or none.
    func openScanned(_ photo: Photo, forUser: Bool = false) -> Result<OpenedSource, Errno> {
        do throws(Errno) {
            return .success(try SourceOpening.scanned(ScannedFile(photo), beneath: sourceRoot, forUser: forUser))
        } catch {
            if error == .notFound { reportStale(photo) }
            return .failure(error)
        }
    }

    /// Hands a photo whose file is not the one scanned (gone, replaced, rewritten) to be rescanned.
    func reportStale(_ photo: Photo) { staleFile.withLock { $0 }?(photo.sourcePath) }

    /// Who rescans a file found changed or replaced when opened (the library's follower).
    public func onStaleFile(_ handler: @escaping @Sendable (String) -> Void) { staleFile.withLock { $0 = handler } }

    /// Runs `attempt` (an open, a render, a pick's hash) on `photo`, as tree number `tree` shows
    /// it. A file not at its photo's path may have moved with its folder (renamed in SOURCE): the
    /// photo keeps its inode, and the tree that shows its new path comes within ~0.7 s. So when
    /// the file is missing (after `attempt` failed; with `lookFirst`, before it too: a pick's hash
    /// that fails costs more than a look) and a change seen in SOURCE is not shown yet, this waits
    /// for the next tree (at most `movedFileWait` in all) and goes on with the photo `shown` finds
    /// in it (`cp` out of the mount while folders are reorganised in SOURCE reads every photo,
    /// rather than ENOENT or EIO). Returns the last result and the photo it was for.
    func followingMoves<T>(_ photo: Photo, tree: Int, lookFirst: Bool = false, shown: () -> Photo?,
                           _ attempt: (Photo) -> Result<T, Errno>) -> (result: Result<T, Errno>, photo: Photo) {
        var photo = photo, tree = tree
        let deadline = PendingChanges.monotonicNow() + Self.movedFileWait
        /// The photo the next tree shows, when the file is missing and one comes. (Not while the
        /// library is unavailable, its disk unplugged: every file is missing then.)
        func moved() -> Photo? {
            guard libraryAvailable.load(ordering: .relaxed), isMissing(photo),
                  pendingChanges.awaitTree(newerThan: tree, until: deadline) else { return nil }
            tree = pendingChanges.tree
            return shown()  // (nil: gone from the views too, deleted)
        }
        while true {
            if lookFirst, let next = moved() {
                photo = next
                continue
            }
            let result = attempt(photo)
            guard case .failure = result, let next = moved() else { return (result, photo) }
            photo = next
        }
    }

    /// Whether the photo's source file is not at its path (ENOENT, not some other failure).
    func isMissing(_ photo: Photo) -> Bool {
        access(sourceRoot + "/" + photo.sourcePath, F_OK) != 0 && errno == ENOENT
    }

    /// The photo a file inode (an original or a thumbnail) shows in the current tree.
    func shownPhoto(inode: UInt64) -> Photo? { current.photo(inode: inode) }
}
