import AlbumCore
import CSysVfs
import Glibc
import AlbumSystem
import Synchronization

/// Whether a filesystem's inode numbers name its files, told device by device as the walk enters
/// folders (`fstatfs`).
///
/// Most do (ext4, btrfs, XFS, NFS, NTFS). Some make the numbers up as files are looked up: FAT
/// and exFAT (the cards and disks cameras and phones write), high-level FUSE filesystems (sshfs,
/// rclone mount, GNOME's gvfs, which list every entry as inode 4294967295 and number files in
/// lookup order) and SMB shares without server inode numbers. There the number is neither a
/// file's identity from one mount (or one look) to the next nor a way to tell hard links apart:
/// files are then told unchanged by size and mtime alone (their inode is kept as 0), and none is
/// taken for a hard link of another. (All of FUSE is counted, since it cannot say which kind it
/// is: a FUSE filesystem with real numbers loses only the inode check and hard-link merging.)
final class InodeNumbers: Sendable {
    /// `statfs` types whose inode numbers are made up per mount.
    static let madeUpBy: Set<Int> = [
        0x4D44,  // MSDOS_SUPER_MAGIC: vfat, msdos
        0x2011_BAB0,  // EXFAT_SUPER_MAGIC
        NetworkStorage.fuse,  // fuse and fuseblk
        0xFF53_4D42,  // CIFS_SUPER_MAGIC
        0xFE53_4D42,  // SMB2_SUPER_MAGIC
    ]

    private let devices = Locked<(trusted: Set<UInt64>, madeUp: Set<UInt64>)>(([], []))
    /// Whether any device met so far makes its numbers up: while none does (the usual library on
    /// one disk), `identity` takes no lock.
    private let anyMadeUp = Atomic<Bool>(false)

    /// Learns `device` from an open folder on it, once; returns whether its numbers are real.
    @discardableResult
    func learn(folder fd: Int32, device: UInt64) -> Bool {
        if let known = devices.withLock({ $0.trusted.contains(device) ? true : $0.madeUp.contains(device) ? false : nil }) { return known }
        var fs = statfs()
        // Unknown (fstatfs failed): trusted, as the numbers of most filesystems are.
        let madeUp = fstatfs(fd, &fs) == 0 && Self.madeUpBy.contains(Int(fs.f_type))
        devices.withLock { _ = madeUp ? $0.madeUp.insert(device) : $0.trusted.insert(device) }
        if madeUp { anyMadeUp.store(true, ordering: .releasing) }
        return !madeUp
    }

    /// Whether files on `device` are told by their inode numbers (a device never learned is).
    func areReal(on device: UInt64) -> Bool {
        guard anyMadeUp.load(ordering: .acquiring) else { return true }
        return !devices.withLock { $0.madeUp.contains(device) }
    }

    /// A file's identity: its inode number only where that names it.
    func identity(_ st: stat) -> FileIdentity {
        FileIdentity(inode: areReal(on: UInt64(st.st_dev)) ? UInt64(st.st_ino) : 0, size: Int64(st.st_size),
                     mtime: Timestamp(seconds: Int64(st.st_mtim.tv_sec), nanoseconds: Int(st.st_mtim.tv_nsec)))
    }
}
