import AlbumCore
import AlbumSystem
import Glibc
import Synchronization

/// The files behind the tree: open handles, originals opened beneath SOURCE and checked to be
/// the files scanned, photos followed when their folder moved in SOURCE, thumbnails made at
/// their first read, and whether the library's storage answers (docs/security.md, docs/errno.md).
///
/// Everything here may wait (on SOURCE, on a decoder, on the next tree); `TreeView` never does.
/// The photo a handle shows now comes from the caller (`shown`), so this knows no tree.
public final class SourceFiles: Sendable {
    public let sourceRoot: String
    let files = HandleTable<OpenFile>()
    /// Originals each user other than the mounting one holds open.
    let handleQuota = HandleQuota()
    let thumbnails: ThumbnailProvider?
    /// Bytes of originals read through the mount (`.albumfs/status`: what file managers and
    /// scripts read).
    public let originalBytesRead = Atomic<Int>(0)
    /// Originals opened through the mount (`.albumfs/status`): each open of one is a request
    /// the kernel makes, even when it holds every page of the file.
    public let originalOpens = Atomic<Int>(0)
    let problems: OnceLog
    /// Where the daemon's lines go.
    let logLine: @Sendable (String) -> Void
    /// False while the library cannot be scanned (its folder gone, or its disk not mounted: an
    /// empty folder is left): the views keep its photos, and opening one answers EIO.
    let libraryAvailable = Atomic<Bool>(true)
    /// The number of the last change of the storage's state that was logged (changes may be told
    /// out of order: `stallChanged`). The state itself is its owner's, whoever answers requests
    /// with a deadline (`SourceDeadlines`).
    private let stallChangeLogged = Atomic<UInt64>(0)
    /// Whoever follows the library (`follow`).
    private let follower = Locked(FollowerReference())
    /// How long an open, a thumbnail's render or a pick waits for the tree that shows where a
    /// photo's file went: the 2 s for a change to show (docs/errno.md).
    static let movedFileWait = 2.0

    init(sourceRoot: String, thumbnails: ThumbnailProvider?, log: @escaping @Sendable (String) -> Void) {
        self.sourceRoot = sourceRoot
        self.thumbnails = thumbnails
        self.problems = OnceLog(sink: log)
        self.logLine = log
    }

    /// Who waits for trees and is told of changed files from now on.
    func follow(_ follower: any LibraryFollowing) { self.follower.withLock { $0.follower = follower } }

    var following: any LibraryFollowing { follower.withLock { $0.follower } ?? NotFollowed.shared }

    // MARK: The library's storage

    /// Logs that the storage stopped answering (a request waited `seconds` for it), or answers
    /// again; `change` numbers the changes (one told after a later one is not logged).
    func stallChanged(_ stalled: Bool, change: UInt64, seconds: Double) {
        var logged = stallChangeLogged.load(ordering: .relaxed)
        while true {
            guard change > logged else { return }
            let swapped = stallChangeLogged.compareExchange(expected: logged, desired: change, ordering: .relaxed)
            if swapped.exchanged { break }
            logged = swapped.original
        }
        logLine(stalled ? "albumfs: \(sourceRoot) has not answered for \(Int(seconds)) s: reads of its files answer EIO until it does; listings answer from the index"
                        : "albumfs: \(sourceRoot) answers again")
    }

    // MARK: Handles

    /// The corresponding FUSE operation is `release`.
    func release(_ handle: UInt64) {
        if case .original(let file)? = files.remove(handle), let holder = file.holder { handleQuota.give(holder) }
    }

    // MARK: The filesystem SOURCE is on

    /// The corresponding FUSE operation is `statfs`: the figures of the filesystem SOURCE is on,
    /// as passthrough filesystems, sshfs and mergerfs answer, with albumfs's own name limit; all
    /// zero while SOURCE cannot be asked. (A library's size with nothing free would read as a full
    /// disk: GNOME's housekeeping warns of low disk space on such a mount, since it passes over
    /// only read-only and zero-sized ones, and `picked/` takes links.)
    func statistics() -> FileSystemStatistics {
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
