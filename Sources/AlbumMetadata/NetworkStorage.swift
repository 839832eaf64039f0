import CSysVfs
import Glibc

/// Whether a folder is on network storage, told by its filesystem's type (`statfs`): NFS, SMB,
/// 9P, Ceph, AFS, and FUSE (sshfs, `rclone mount`, GNOME's gvfs). A FUSE filesystem cannot say
/// where its files are: an NTFS disk through ntfs-3g (`fuseblk`, the same type) is counted too,
/// where more reads in flight do no harm.
enum NetworkStorage {
    /// `FUSE_SUPER_MAGIC`: fuse and fuseblk alike (`FolderTimes` tells them apart by mountinfo).
    static let fuse = 0x6573_5546

    static let types: Set<Int> = [
        0x6969,  // NFS_SUPER_MAGIC
        0xFF53_4D42,  // CIFS_SUPER_MAGIC
        0xFE53_4D42,  // SMB2_SUPER_MAGIC
        0x517B,  // SMB_SUPER_MAGIC
        0x0102_1997,  // V9FS_MAGIC
        0x00C3_6400,  // CEPH_SUPER_MAGIC
        0x5346_414F,  // AFS_FS_MAGIC
        fuse,
    ]

    /// Whether `path` is on one (false when `statfs` fails: taken for a local disk).
    static func holds(_ path: String) -> Bool {
        var fs = statfs()
        return statfs(path, &fs) == 0 && types.contains(Int(fs.f_type))
    }
}
