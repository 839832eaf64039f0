import AlbumSystem
import Glibc
import Synchronization

/// The freedesktop thumbnail folders (`$XDG_CACHE_HOME/thumbnails/normal` and `large`) as albumfs
/// writes them: checked private once (`PrivateFolder`: the user's own, below no folder another
/// user could replace), then held open, so every read and write after is relative to those
/// descriptors (`openat`, `renameat`) and no link planted later is followed. The bytes of the
/// thumbnails albumfs wrote there (found at the first use by their `Software` text, then counted as
/// written) are kept within `limit`, the oldest removed first; other programs' are never touched.
public final class DesktopThumbnailFolders: Sendable {
    public let root: String
    /// Bytes albumfs's thumbnails there may take (`-o desktop_thumbnails_size`).
    public let limit: Int64
    private struct Written {
        var size: Int64
        var time: Int64
    }
    private struct Opened {
        /// Folder name (`normal`, `large`) → its descriptor.
        var folders: [String: Int32] = [:]
        /// `folder/name` → what albumfs wrote there.
        var ours: [String: Written] = [:]
        var total: Int64 = 0
    }
    // Protects the open folders and the count of what is ours; held only to look up or count,
    // never across a read or write of a thumbnail.
    private let state = Locked<Opened?>(nil)
    /// Whether a use has taken on opening the folders: the first one does, once.
    private let claimed = Atomic<Bool>(false)
    /// Given once the first use tried to open the folders (`state` holds them when it could):
    /// other uses wait for it with no lock held, so no lock is held across the opening's I/O.
    private let opened = Promise<Bool>()

    private let log: @Sendable (String) -> Void

    init(root: String, limit: Int64, log: @escaping @Sendable (String) -> Void) {
        self.root = root
        self.limit = limit
        self.log = log
    }

    /// The descriptor of folder `name`, opening them all first (once); nil when they cannot be used.
    func folder(_ name: String) throws(ThumbnailError) -> Int32 {
        if let fd = state.withLock({ $0?.folders[name] }) { return fd }
        try openOnce()
        guard let fd = state.withLock({ $0?.folders[name] }) else { throw ThumbnailError("no thumbnail folder \(name)", isReadFailure: true) }
        return fd
    }

    /// Opens the folders at the first use; what keeps them from being used is said once.
    private func openOnce() throws(ThumbnailError) {
        guard claimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            _ = opened.wait()
            return
        }
        defer { opened.fulfil(true) }
        do throws(ThumbnailError) {
            try openFolders()
        } catch {
            log("albumfs: warning: desktop thumbnails are not written: \(error)")
            throw error
        }
    }

    private func openFolders() throws(ThumbnailError) {
        var opened = Opened()
        let made: String?
        do throws(PrivateFolder.Refusal) { made = try PrivateFolder.make(root) } catch { throw ThumbnailError("\(error)", isReadFailure: true) }
        guard made != nil else { throw ThumbnailError("\(root) cannot be made", isReadFailure: true) }
        let rootFD = Errno.retryingInterrupts { open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        guard rootFD >= 0 else { throw ThumbnailError("cannot open \(root): \(Errno.current)", isReadFailure: true) }
        defer { close(rootFD) }
        for (name, _) in [(".", 0)] + DesktopThumbnails.sizes {
            if name != "." { _ = mkdirat(rootFD, name, 0o700) }
            let fd = Errno.retryingInterrupts { openat(rootFD, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
            var st = stat()
            guard fd >= 0, fstat(fd, &st) == 0, st.st_uid == geteuid() else {
                if fd >= 0 { close(fd) }
                opened.folders.values.forEach { close($0) }
                throw ThumbnailError("\(root)/\(name) is not private (not a folder of uid \(geteuid()))", isReadFailure: true)
            }
            if name == "." { close(fd); continue }
            if st.st_mode & 0o077 != 0 { fchmod(fd, 0o700) }
            opened.folders[name] = fd
            for (file, written) in Self.ours(in: fd) {
                opened.ours[name + "/" + file] = written
                opened.total += written.size
            }
        }
        state.withLock { $0 = opened }
    }

    /// The thumbnails in the folder open as `fd` that albumfs wrote (their `Software` text).
    private static func ours(in fd: Int32) -> [(String, Written)] {
        let copy = dup(fd)
        guard copy >= 0, let dir = fdopendir(copy) else { if copy >= 0 { close(copy) }; return [] }
        defer { closedir(dir) }
        var found: [(String, Written)] = []
        let mark = Array("Software".utf8) + [0] + Array("albumfs".utf8)
        while let entry = readdir(dir) {
            let name = direntName(entry)
            guard name.hasSuffix(".png") else { continue }
            let file = openat(fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard file >= 0 else { continue }
            defer { close(file) }
            var st = stat()
            guard fstat(file, &st) == 0, st.st_mode & S_IFMT == S_IFREG,
                  case .success(let head) = PositionalRead.bytes(file, count: 1024, at: 0),
                  head.count >= mark.count, (0...(head.count - mark.count)).contains(where: { head[$0..<($0 + mark.count)].elementsEqual(mark) })
            else { continue }
            found.append((name, Written(size: Int64(st.st_size), time: Int64(st.st_mtim.tv_sec))))
        }
        return found
    }

    /// Writes `bytes` as `name` in `folder` (whole, or not at all), counts it, and removes the
    /// oldest of albumfs's own while they are over `limit` (down to nine tenths of it).
    func store(_ bytes: [UInt8], as name: String, in folder: String) throws(ThumbnailError) {
        let fd = try self.folder(folder)
        if let failure = WholeWrite.replacing(name, in: fd, with: bytes) {
            throw ThumbnailError("cannot write \(root)/\(folder)/\(name): \(failure)", isReadFailure: true)
        }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let evict = state.withLock { s -> [(String, Int32)] in
            guard s != nil else { return [] }
            let key = folder + "/" + name
            s!.total += Int64(bytes.count) - (s!.ours[key]?.size ?? 0)
            s!.ours[key] = Written(size: Int64(bytes.count), time: Int64(now.tv_sec))
            guard s!.total > limit else { return [] }
            var gone: [(String, Int32)] = []
            for (key, written) in s!.ours.sorted(by: { $0.value.time < $1.value.time }) where s!.total > limit / 10 * 9 {
                let parts = key.split(separator: "/", maxSplits: 1).map(String.init)
                guard parts.count == 2, let dir = s!.folders[parts[0]] else { continue }
                s!.ours[key] = nil
                s!.total -= written.size
                gone.append((parts[1], dir))
            }
            return gone
        }
        for (file, dir) in evict { unlinkat(dir, file, 0) }
    }

    /// Bytes of albumfs's thumbnails in the folders now (status, tests).
    public var bytesUsed: Int64 { state.withLock { $0?.total ?? 0 } }

    /// The first `count` bytes of `name` in `folder`, no link followed; nil when there is none.
    func head(of name: String, in folder: String, count: Int) -> [UInt8]? {
        guard let fd = try? self.folder(folder) else { return nil }
        let file = openat(fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard file >= 0 else { return nil }
        defer { close(file) }
        guard case .success(let bytes) = PositionalRead.bytes(file, count: count, at: 0) else { return nil }
        return bytes
    }

    deinit {
        state.withLock { $0?.folders.values.forEach { close($0) } }
    }
}
