import AlbumCore
import Glibc
import AlbumSystem
import Synchronization

/// An original opened for reading; closes its descriptor when the last reference goes.
final class OpenOriginal: Sendable {
    let fd: Int32
    /// The file's path below SOURCE, for what is logged of it.
    let relativePath: String
    /// The user who opened it, counted in `HandleQuota` until it is released (nil: not counted).
    let holder: UInt32?
    /// The part of the file the handle reads (a motion photo's video), nil: all of it.
    let range: ByteRange?
    init(fd: Int32, relativePath: String, holder: UInt32? = nil, range: ByteRange? = nil) {
        self.fd = fd
        self.relativePath = relativePath
        self.holder = holder
        self.range = range
    }

    /// Where a read of `count` bytes at `offset` of the handle's file lies in the source file,
    /// and how many bytes it may take (0 at or past the range's end).
    func sourceRead(at offset: Int64, count: Int) -> (offset: Int64, count: Int) {
        guard let range else { return (offset, count) }
        guard offset < range.length else { return (range.offset + range.length, 0) }
        return (range.offset + offset, Int(min(Int64(count), range.length - offset)))
    }
    deinit { close(fd) }
}

/// A thumbnail opened for reading: rendered (or fetched from the cache) on the first read, then
/// served from memory for the life of the handle.
final class OpenThumbnail: Sendable {
    let inode: UInt64
    /// The photo at the open (a read renders the one the inode shows then).
    let photo: Photo
    let box: ThumbnailBox
    let bytes = Locked<[UInt8]?>(nil)

    init(inode: UInt64, photo: Photo, box: ThumbnailBox) {
        self.inode = inode
        self.photo = photo
        self.box = box
    }
}

/// What a file handle (`fi->fh`) refers to.
enum OpenFile: Sendable {
    case original(OpenOriginal)
    case thumbnail(OpenThumbnail)
    /// Text made at open (`.albumfs/status`).
    case text([UInt8])

    /// How reads of it are served, carried in its handle's number.
    var reads: ReadService {
        switch self {
        case .original: return .source
        case .thumbnail: return .render
        case .text: return .inline
        }
    }
}

extension HandleTable where Value == OpenFile {
    /// A handle for `file` whose number carries how its reads are served (`ReadService(handle:)`).
    func open(_ file: OpenFile) -> UInt64 { insert(file, tag: file.reads.handleBits) }
}

/// File and directory handles given to the kernel (`fi->fh`), numbered from 1, in shards: every
/// open, read and release takes one of these locks, and a flood of opens by one user (64 threads
/// opening and closing in a loop) must not queue everyone else's reads behind one lock.
final class HandleTable<Value: Sendable>: Sendable {
    private final class Shard: Sendable {
        // Protects the handles whose number falls to this shard; never held while doing I/O.
        let handles = Locked<[UInt64: Value]>([:])
    }
    private static var shardCount: Int { 16 }
    private let next = Atomic<UInt64>(1)
    private let shards: [Shard] = (0..<HandleTable.shardCount).map { _ in Shard() }

    private func shard(_ handle: UInt64) -> Shard { shards[Int(handle % UInt64(Self.shardCount))] }

    /// A new handle for `value`: the next number, with `tag`'s bits (above any number a
    /// mount's life reaches, and a multiple of the shard count) set in it.
    func insert(_ value: Value, tag: UInt64 = 0) -> UInt64 {
        let h = next.add(1, ordering: .relaxed).oldValue | tag
        shard(h).handles.withLock { $0[h] = value }
        return h
    }

    func get(_ handle: UInt64) -> Value? { shard(handle).handles.withLock { $0[handle] } }

    @discardableResult
    func remove(_ handle: UInt64) -> Value? { shard(handle).handles.withLock { $0.removeValue(forKey: handle) } }

    var count: Int { shards.reduce(0) { n, shard in n + shard.handles.withLock { $0.count } } }
}

/// Logs each problem once, so a broken file read a thousand times fills no log.
final class OnceLog: Sendable {
    private let seen = Locked(Set<String>())
    private let sink: @Sendable (String) -> Void

    init(sink: @escaping @Sendable (String) -> Void) { self.sink = sink }

    func log(_ key: String, _ message: @autoclosure () -> String) {
        let first = seen.withLock { $0.insert(key).inserted }
        if first { sink(message()) }
    }
}
