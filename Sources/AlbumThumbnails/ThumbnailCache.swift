import AlbumCore
import AlbumSystem
import FoundationEssentials
import Glibc
import Synchronization

/// Thumbnails on disk: `DIR/ab/abcdef….jpg`, written atomically (temporary file + rename, so a
/// crash never leaves half a file), bounded in size with least-recently-used eviction (a hit
/// touches the file's mtime; eviction removes the oldest, and the temporary files of writers
/// that died). Safe to delete by hand at any time.
public final class ThumbnailCache: Sendable {
    public let directory: String
    /// The folder, checked private once and held open: every file in it is reached relative to
    /// this descriptor, so its path is never looked up again (a link put in its place later is
    /// not followed).
    private let folder: Int32
    public let maxBytes: Int64
    /// Bytes believed to be in the cache; recounted from disk when eviction runs.
    private let usedBytes: Atomic<Int64>
    private let evicting = Locked(false)

    /// Nil when the folder cannot be created or written: the caller renders in memory instead.
    /// Throws when the folder is not private (`PrivateFolder`): another user's, or writable by
    /// others, it could hold thumbnails planted for other photos.
    public init?(directory: String, maxBytes: Int64) throws(PrivateFolder.Refusal) {
        guard (try PrivateFolder.make(directory)) != nil, access(directory, W_OK | X_OK) == 0 else { return nil }
        let fd = Errno.retryingInterrupts { open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        var st = stat()
        guard fd >= 0, fstat(fd, &st) == 0, st.st_uid == geteuid() else {
            if fd >= 0 { close(fd) }
            return nil
        }
        folder = fd
        self.directory = directory
        self.maxBytes = maxBytes
        usedBytes = Atomic(Self.scan(fd).reduce(0) { $0 + $1.size })
    }

    deinit { close(folder) }

    public var bytesUsed: Int64 { usedBytes.load(ordering: .relaxed) }

    /// The file of `key`, relative to the folder.
    func path(for key: String) -> String { "\(key.prefix(2))/\(key).jpg" }

    /// The cached bytes, if present, a regular file (no link followed), of the expected size and
    /// a JPEG from its first byte to its last (SOI … EOI): anything else is ignored, and made
    /// again (a folder shared with other daemons or machines may hold what they left).
    public func read(_ key: String, expectedSize: Int) -> [UInt8]? {
        let p = path(for: key)
        let fd = Errno.retryingInterrupts { openat(folder, p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, Int(st.st_size) == expectedSize,
              case .success(let bytes) = PositionalRead.bytes(fd, count: expectedSize, at: 0), bytes.count == expectedSize,
              bytes.starts(with: [0xFF, 0xD8]), bytes.suffix(2).elementsEqual([0xFF, 0xD9]) else { return nil }
        // Least recently used is tracked by mtime.
        futimens(fd, nil)
        return bytes
    }

    /// Stores bytes atomically (mode 0600, in folders of mode 0700). A failure (a full disk) loses
    /// nothing but the cached copy: the caller keeps the thumbnail in memory and says so once.
    public func write(_ key: String, _ bytes: [UInt8]) throws(Errno) {
        let final = path(for: key)
        mkdirat(folder, String(key.prefix(2)), 0o700)
        if let failure = WholeWrite.replacing(final, in: folder, with: bytes) { throw failure }
        let used = usedBytes.add(Int64(bytes.count), ordering: .relaxed).newValue
        if used > maxBytes { evict() }
    }

    /// Removes least recently used files until the cache is at 90% of its bound.
    func evict() {
        let mine = evicting.withLock { busy -> Bool in
            if busy { return false }
            busy = true
            return true
        }
        guard mine else { return }
        defer { evicting.withLock { $0 = false } }
        Self.removeAbandoned(folder)
        var files = Self.scan(folder)
        var total = files.reduce(0) { $0 + $1.size }
        files.sort { $0.mtime < $1.mtime }
        let target = maxBytes / 10 * 9
        for f in files where total > target {
            if unlinkat(folder, f.path, 0) == 0 { total -= f.size }
        }
        usedBytes.store(total, ordering: .relaxed)
    }

    /// A temporary file older than this was left by a writer that died (a thumbnail is written
    /// in milliseconds); a younger one may be another daemon's, sharing the folder, still writing.
    static let abandonedAfter: Int64 = 3600

    /// Removes the temporary files (`WholeWrite`'s) writers that died left behind.
    static func removeAbandoned(_ folder: Int32) {
        let now = Int64(Date().timeIntervalSince1970)
        for file in files(folder, named: { $0.hasPrefix(WholeWrite.temporaryPrefix) }) where now - file.mtime.seconds > abandonedAfter {
            unlinkat(folder, file.path, 0)
        }
    }

    struct Entry {
        var path: String
        var size: Int64
        var mtime: Timestamp
    }

    /// The thumbnails in the cache.
    static func scan(_ folder: Int32) -> [Entry] { files(folder, named: { $0.hasSuffix(".jpg") }) }

    /// The regular files of the cache folder open as `folder` (in its subfolders, no link
    /// followed) whose names pass `named`, their paths relative to it.
    static func files(_ folder: Int32, named: (String) -> Bool) -> [Entry] {
        var out: [Entry] = []
        for sub in names(in: folder, at: ".") {
            let subfolder = Errno.retryingInterrupts { openat(folder, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
            guard subfolder >= 0 else { continue }
            defer { close(subfolder) }
            for name in names(in: subfolder, at: ".") where named(name) {
                var st = stat()
                guard fstatat(subfolder, name, &st, AT_SYMLINK_NOFOLLOW) == 0, st.st_mode & S_IFMT == S_IFREG else { continue }
                out.append(Entry(path: sub + "/" + name, size: Int64(st.st_size),
                                 mtime: Timestamp(seconds: Int64(st.st_mtim.tv_sec), nanoseconds: st.st_mtim.tv_nsec)))
            }
        }
        return out
    }

    /// The names in folder `path` below `folder` (but `.` and `..`).
    static func names(in folder: Int32, at path: String) -> [String] {
        let fd = Errno.retryingInterrupts { openat(folder, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        guard fd >= 0 else { return [] }
        guard let dir = fdopendir(fd) else { close(fd); return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = direntName(entry)
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The cache key of a photo's thumbnail in `box` (`key(path:identity:changedWhenRead:orientation:box:)`).
    public static func key(of photo: Photo, box: ThumbnailBox) -> String {
        key(path: photo.relativePath, identity: photo.identity, changedWhenRead: photo.changedWhenRead, orientation: photo.orientation, box: box)
    }

    /// The cache key: the source's identity (inode, size, mtime) and its ctime when read, its EXIF
    /// orientation, the box and the pipeline version, hashed (FNV-1a 128 as two 64-bit lanes). The
    /// ctime because a file rewritten in place can keep its size and mtime (`touch -r`, `exiftool
    /// -P`); the scan reads it again by its ctime, and its old thumbnail must not be served. The
    /// path in the library only where the filesystem makes inode numbers up (inode 0:
    /// `InodeNumbers`), since size and mtime alone could meet twice; elsewhere a photo whose folder
    /// is renamed or moved, or a library mounted at another path, keeps its thumbnails. (Equal
    /// inode, size, mtime and ctime to the nanosecond on two disks is a copy: the same picture.)
    /// The path in the library, not on the machine: a camera card mounted at another path
    /// (`/media/u/EOS_DIGITAL1`) keeps its thumbnails too.
    public static func key(path: String, identity: FileIdentity, changedWhenRead: Timestamp?, orientation: Int, box: ThumbnailBox,
                           pipeline: Int = ThumbnailRenderer.pipelineVersion) -> String {
        let changed = changedWhenRead.map { "|c\($0.seconds).\($0.nanoseconds)" } ?? ""
        let text = "\(pipeline)|\(box)|\(identity.inode)|\(identity.size)|"
            + "\(identity.mtime.seconds).\(identity.mtime.nanoseconds)\(changed)|o\(orientation)" + (identity.inode == 0 ? "|\(path)" : "")
        var a: UInt64 = 0xcbf2_9ce4_8422_2325, b: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in text.utf8 {
            a = (a ^ UInt64(byte)) &* 0x100_0000_01b3
            b = (b ^ UInt64(byte)) &* 0x100_0000_01b3 &+ 0x9e37_79b9
        }
        return hex(a) + hex(b)
    }

    static func hex(_ v: UInt64) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
