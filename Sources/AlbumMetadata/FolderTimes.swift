import AlbumCore
import AlbumSystem
import CSysVfs
import FoundationEssentials
import Glibc

/// What the walks saw of each folder they listed (by relative path, "" the library's own): its
/// times and its subfolders, so that a later walk may take a folder whose times are unchanged as
/// it was, without listing it or looking at its files (`LibraryWalk.walk`'s `skipping`).
///
/// A folder's mtime changes whenever an entry is added to it, removed or renamed, on storage
/// that keeps folder times (`keepsFolderTimes`); its ctime also when its mode or owner changes.
/// What no folder time tells is a file rewritten in place, whose own times change: such a walk
/// misses it, so it is for periodic rescans only, with a whole walk now and then
/// (`-o full_rescan`). A folder is remembered only when its times are older than the listing by
/// `racyMargin` (as git's "racy clean" entries): a change made within the same tick of a coarse
/// clock (a second over SFTP, two on FAT) as the listing leaves the times as they were.
///
/// A value: a walk takes it with it to its thread and hands it back in its survey
/// (`Survey.folderTimes`), for the next walk.
public struct FolderTimes: Sendable {
    struct Stamp: Equatable {
        var device: UInt64
        var inode: UInt64
        var mtime: Timestamp
        var ctime: Timestamp

        init(_ st: stat) {
            device = UInt64(st.st_dev)
            inode = UInt64(st.st_ino)
            mtime = Timestamp(st.st_mtim)
            ctime = Timestamp(st.st_ctim)
        }
    }

    struct Seen {
        var stamp: Stamp
        /// The subfolders the walk entered (relative paths, in walk order).
        var subfolders: [String]
        /// The walk that last listed or took the folder.
        var walk: Int
    }

    private var seen: [String: Seen] = [:]
    /// Whether each device keeps folder times, learned once per walk (a FUSE device number is
    /// handed to the next FUSE mount once the last is unmounted).
    private var honest: [UInt64: Bool] = [:]
    private var walk = 0
    /// Folders the running walk lists whatever their times (what inotify named: a file in them
    /// was rewritten in place, which leaves the folder's times as they were).
    private var mustList: Set<String> = []
    /// Whether the running walk may take folders as they were.
    private(set) var skipping = false
    /// Folders the last walk listed, and took as they were.
    public private(set) var listedCount = 0
    public private(set) var takenCount = 0
    public let racyMargin: Double

    public init(racyMargin: Double = 3) {
        self.racyMargin = racyMargin
    }

    /// Folders remembered.
    public var count: Int { seen.count }

    /// Starts a walk: `skipping` says whether it may take folders as they were, `mustList` the
    /// folders it lists all the same.
    mutating func begin(skipping: Bool, mustList: Set<String>) {
        walk += 1
        honest = [:]
        listedCount = 0
        takenCount = 0
        self.skipping = skipping
        self.mustList = mustList
    }

    /// The subfolders of `folder` as last listed, when `st` (the folder's `stat` now) shows it
    /// unchanged since and the walk may take it as it was; nil when it must be listed.
    mutating func unchanged(_ folder: String, _ st: stat) -> [String]? {
        guard skipping, !mustList.contains(folder), var known = seen[folder], known.stamp == Stamp(st) else { return nil }
        known.walk = walk
        seen[folder] = known
        takenCount += 1
        return known.subfolders
    }

    /// Remembers a folder the walk listed whole (`fd` open on it, `st` its `stat` taken before
    /// the listing, at `listedAt`), unless its storage does not keep folder times or its times
    /// are too close to the listing to tell a change made just after it.
    mutating func listed(_ folder: String, fd: Int32, _ st: stat, subfolders: [String], listedAt: Timestamp) {
        listedCount += 1
        let stamp = Stamp(st)
        let edge = Double(listedAt.nanosecondsSinceEpoch) / 1e9 - racyMargin
        let newest = max(stamp.mtime, stamp.ctime)
        guard Double(newest.nanosecondsSinceEpoch) / 1e9 < edge, keepsTimes(device: stamp.device, fd: fd) else {
            seen[folder] = nil
            return
        }
        seen[folder] = Seen(stamp: stamp, subfolders: subfolders, walk: walk)
    }

    /// Takes back `unchanged`'s answer for `folder`: it is listed after all.
    mutating func list(_ folder: String) {
        takenCount -= 1
        seen[folder] = nil
    }

    /// Forgets `folder` (one of its files is still being written: the next walk lists it).
    mutating func forget(_ folder: String) { seen[folder] = nil }

    /// Ends the walk of `start`: folders below it that it neither listed nor took are gone.
    mutating func end(under start: String) {
        seen = seen.filter { $0.value.walk == walk || !$0.key.isWithin(folder: start) }
        skipping = false
        mustList = []
    }

    private mutating func keepsTimes(device: UInt64, fd: Int32) -> Bool {
        if let known = honest[device] { return known }
        let keeps = Self.keepsFolderTimes(fd: fd, device: device)
        honest[device] = keeps
        return keeps
    }
}

extension FolderTimes {
    /// FUSE filesystems (`mountinfo`'s type) that keep folder times: sshfs gives the server's
    /// folder mtime; `fuseblk` is a disk's filesystem (NTFS through ntfs-3g). Any other FUSE
    /// filesystem may make folder times up (rclone shows an object store's folders with the time
    /// they were listed; gvfs, s3fs and mountpoint-s3 alike), so there every folder is listed.
    static let fuseKeepingFolderTimes: Set<String> = ["fuse.sshfs", "fuseblk"]

    /// Whether the filesystem of the open folder `fd` (on `device`) changes a folder's times
    /// whenever an entry is added, removed or renamed in it. Every kernel filesystem does (ext4,
    /// XFS, Btrfs, FAT, NFS, SMB, 9P); of FUSE ones, those named above. Unknown (`fstatfs` fails,
    /// no /proc): no.
    static func keepsFolderTimes(fd: Int32, device: UInt64) -> Bool {
        var fs = statfs()
        guard fstatfs(fd, &fs) == 0 else { return false }
        guard Int(fs.f_type) == NetworkStorage.fuse else { return true }
        guard let table = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8),
              let type = fileSystemType(mountinfo: table, device: device) else { return false }
        return fuseKeepingFolderTimes.contains(type)
    }

    /// The type (`ext4`, `fuse.sshfs`) `mountinfo` gives the filesystem of `device`: its third
    /// field is the device's `major:minor`, the type the first field after the ` - `.
    static func fileSystemType(mountinfo: String, device: UInt64) -> String? {
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~UInt64(0xfff))
        let minor = (device & 0xff) | ((device >> 12) & ~UInt64(0xff))
        let wanted = "\(major):\(minor)"
        for line in mountinfo.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 3, fields[2] == wanted, let dash = fields.firstIndex(of: "-"), dash + 1 < fields.count else { continue }
            return String(fields[dash + 1])
        }
        return nil
    }
}

/// What a walk does with folder times: remembers them in `times`, and, when `skipping`, takes the
/// folders unchanged since as they were, but for those in `mustList`.
public struct FolderWalk: Sendable {
    public var times: FolderTimes
    public var skipping: Bool
    public var mustList: Set<String>

    public init(times: FolderTimes, skipping: Bool, mustList: Set<String> = []) {
        self.times = times
        self.skipping = skipping
        self.mustList = mustList
    }
}
