import AlbumCore
import Glibc
import Synchronization

/// An original opened for reading; closes its descriptor when the last reference goes.
final class OpenOriginal: Sendable {
    let fd: Int32
    /// The file's path below SOURCE, for what is logged of it.
    let relativePath: String
    /// The user who opened it, counted in `HandleQuota` until it is released (nil: not counted).
    let holder: UInt32?
    init(fd: Int32, relativePath: String, holder: UInt32? = nil) {
        self.fd = fd
        self.relativePath = relativePath
        self.holder = holder
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
    let bytes = Mutex<[UInt8]?>(nil)

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
}

/// File and directory handles given to the kernel (`fi->fh`), numbered from 1.
final class HandleTable<Value: Sendable>: Sendable {
    private struct State {
        var next: UInt64 = 1
        var open: [UInt64: Value] = [:]
    }
    // Protects the handle map and the counter; never held while doing I/O.
    private let state = Mutex(State())

    func insert(_ value: Value) -> UInt64 {
        state.withLock { s in
            let h = s.next
            s.next += 1
            s.open[h] = value
            return h
        }
    }

    func get(_ handle: UInt64) -> Value? { state.withLock { $0.open[handle] } }

    @discardableResult
    func remove(_ handle: UInt64) -> Value? { state.withLock { $0.open.removeValue(forKey: handle) } }

    var count: Int { state.withLock { $0.open.count } }
}

/// Logs each problem once, so a broken file read a thousand times fills no log.
final class OnceLog: Sendable {
    private let seen = Mutex(Set<String>())
    private let sink: @Sendable (String) -> Void

    init(sink: @escaping @Sendable (String) -> Void) { self.sink = sink }

    func log(_ key: String, _ message: @autoclosure () -> String) {
        let first = seen.withLock { $0.insert(key).inserted }
        if first { sink(message()) }
    }
}
