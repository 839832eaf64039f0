import AlbumCore
import AlbumSystem
import Glibc

/// Reaching a photo's source file: opened beneath SOURCE and checked to be the file scanned,
/// followed when its folder was renamed in SOURCE (docs/security.md, docs/errno.md).
extension SourceFiles {
    /// Opens a photo's source file for the caller's reads (following a move: `retryingAfterRename`);
    /// `shown` finds the photo the inode shows in the tree published now.
    func openOriginal(_ photo: Photo, tree: Int, holder: UInt32? = nil, shown: () -> Photo?) -> Result<UInt64, Errno> {
        let opened = retryingAfterRename(photo, tree: tree, newPhoto: shown) { photo -> Result<Int32, Errno> in
            openScanned(photo, forUser: true).map(\.fd)
        }
        switch opened.result {
        case .success(let fd):
            let range = opened.photo.isEmbeddedVideo ? opened.photo.motionVideo : nil
            originalOpens.add(1, ordering: .relaxed)
            return .success(files.open(.original(OpenOriginal(fd: fd, relativePath: opened.photo.sourcePath, holder: holder, range: range))))
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
    /// (`SourceOpening.scanned`). Anything else there is ENOENT, and the file is handed to the
    /// follower for a rescan: the views show the file the scan saw, or none.
    func openScanned(_ photo: Photo, forUser: Bool = false) -> Result<OpenedSource, Errno> {
        do throws(Errno) {
            return .success(try SourceOpening.scanned(ScannedFile(photo), beneath: sourceRoot, forUser: forUser))
        } catch {
            if error == .notFound { reportStale(photo) }
            return .failure(error)
        }
    }

    /// Hands a photo whose file is not the one scanned (gone, replaced, rewritten) to be rescanned.
    func reportStale(_ photo: Photo) { following.fileChanged(photo.sourcePath) }

    /// Runs `attempt` (an open, a render, a pick's hash) on `photo`, as tree number `tree` shows
    /// it. A file not at its photo's path may have moved with its folder (renamed in SOURCE): the
    /// photo keeps its inode, and the tree that shows its new path comes within ~0.7 s. So when
    /// the file is missing (after `attempt` failed; with `checkFirst`, before it too: a pick's hash
    /// that fails costs more than a look) and a change seen in SOURCE is not shown yet, this waits
    /// for the next tree (at most `movedFileWait` in all) and goes on with the photo `newPhoto` finds
    /// in it (`cp` out of the mount while folders are reorganised in SOURCE reads every photo,
    /// rather than ENOENT or EIO). Returns the last result and the photo it was for.
    func retryingAfterRename<T>(_ photo: Photo, tree: Int, checkFirst: Bool = false, newPhoto: () -> Photo?,
                                _ attempt: (Photo) -> Result<T, Errno>) -> (result: Result<T, Errno>, photo: Photo) {
        var photo = photo, tree = tree
        let deadline = Condition.monotonicNow() + Self.movedFileWait
        let following = following
        /// The photo the next tree shows, when the file is missing and one comes. (Not while the
        /// library is unavailable, its disk unplugged: every file is missing then.)
        func moved() -> Photo? {
            guard libraryAvailable.load(ordering: .relaxed), isMissing(photo),
                  following.awaitTree(newerThan: tree, until: deadline) else { return nil }
            tree = following.publishedTree
            return newPhoto()  // (nil: gone from the views too, deleted)
        }
        while true {
            if checkFirst, let next = moved() {
                photo = next
                continue
            }
            let result = attempt(photo)
            guard case .failure = result, let next = moved() else { return (result, photo) }
            photo = next
        }
    }

    /// Whether the photo's source file is not at its path beneath SOURCE, reached through no link
    /// (ENOENT, or a link on the way: `SourceOpening.find`; not some other failure).
    func isMissing(_ photo: Photo) -> Bool {
        do throws(Errno) {
            try SourceOpening.withRoot(sourceRoot) { (root: Int32) throws(Errno) in try SourceOpening.find(photo.sourcePath, relativeTo: root) }
            return false
        } catch {
            return error == .notFound || error == Errno(rawValue: ELOOP)
        }
    }
}
