import Glibc
import AlbumCore

/// What `stat` shows for a node, in POSIX terms.
public struct Attributes: Sendable, Equatable {
    public enum Kind: Sendable { case directory, regular, symlink }

    public var inode: UInt64
    public var kind: Kind
    /// Permission bits only (`0o444`, `0o555`); the FUSE adapter adds the file type.
    public var permissions: UInt32
    public var linkCount: UInt32
    public var size: Int64
    public var mtime: Timestamp
    public var uid: UInt32
    public var gid: UInt32
    /// False for what changes without a tree rebuild (`picked/`): the kernel must not cache it.
    public var cacheable = true
}

/// One entry of a directory listing, with the offset of the entry after it.
public struct DirectoryEntry: Sendable {
    public var name: String
    public var attributes: Attributes
    public var nextOffset: Int
}

/// One entry of a directory listing as `readdir` sends it: its name, inode number and type,
/// and the offset of the entry after it.
public struct DirectoryName: Sendable, Equatable {
    public var name: String
    public var inode: UInt64
    public var kind: Attributes.Kind
    public var nextOffset: Int
}

/// `statfs` figures.
public struct FileSystemStatistics: Sendable, Equatable {
    public var blockSize: UInt64
    public var blocks: UInt64
    public var freeBlocks: UInt64
    /// Free blocks an unprivileged user may take.
    public var availableBlocks: UInt64
    public var files: UInt64
    public var freeFiles: UInt64
    public var nameMax: UInt64
}

/// Who owns every node (the one who mounted, or `-o uid=,gid=`), and the permission bits taken
/// from every mode (`-o umask=`), as sshfs and rclone mount report them.
public struct Owner: Sendable {
    public var uid: UInt32
    public var gid: UInt32
    public var umask: UInt32
    /// The user who mounted (the daemon's own): with root, the only one who may change `picked/`.
    public var mountedBy: UInt32
    /// `-o uid=` / `-o gid=`: every file shows them; nil: a photo shows its source file's.
    public var fileUID: UInt32?
    public var fileGID: UInt32?

    public init(uid: UInt32, gid: UInt32, umask: UInt32 = 0, mountedBy: UInt32 = getuid(), fileUID: UInt32? = nil, fileGID: UInt32? = nil) {
        self.uid = uid
        self.gid = gid
        self.umask = umask
        self.mountedBy = mountedBy
        self.fileUID = fileUID
        self.fileGID = fileGID
    }

    /// What a photo's entry shows (its original, or with `thumbnail` one of its thumbnails): the
    /// source file's owner and permission bits (a thumbnail its read bits only: it is read as
    /// the photo is), as sshfs and bindfs show them; the mount's owner and 0444 where unknown.
    /// `-o uid,gid` override the owner, `-o umask` takes bits away.
    public func photoEntry(_ access: FileAccess?, thumbnail: Bool) -> (permissions: UInt32, uid: UInt32, gid: UInt32) {
        let bits = access.map { thumbnail ? $0.mode & 0o444 : $0.mode & 0o777 } ?? 0o444
        return (mode(bits), fileUID ?? access?.uid ?? uid, fileGID ?? access?.gid ?? gid)
    }

    /// Whether the user `caller` may pick, unpick and rename picks: the one who mounted, the
    /// owner the mount shows (`-o uid=`), and root; under `allow_other` nobody else, whatever the
    /// mode bits say (docs/security.md).
    public func mayChangePicks(_ caller: UInt32) -> Bool { isPrivileged(caller) }

    /// Whether `caller` is the one who mounted, the owner the mount shows (`-o uid=`) or root:
    /// who may change `picked/`, read `.albumfs/` (which names the library's files), and hold
    /// any number of originals open.
    public func isPrivileged(_ caller: UInt32) -> Bool { caller == 0 || caller == mountedBy || caller == uid }

    /// `bits` (`0o444`, `0o555`, …) without those of the umask.
    public func mode(_ bits: UInt32) -> UInt32 { bits & ~umask & 0o7777 }
}
