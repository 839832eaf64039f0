import AlbumCore
import AlbumSystem
import CMD
import CPNG
import CZlib
import Glibc
import Synchronization

/// Thumbnails where desktop file managers look for them, by the freedesktop thumbnail
/// specification (GNOME's Nautilus, Xfce's Thunar and tumbler, pcmanfm, through GIO): a PNG per
/// file in `$XDG_CACHE_HOME/thumbnails/normal` (at most 128 px a side) and `large` (256), named by
/// the MD5 of the file's URI in the mount, carrying `Thumb::URI` and `Thumb::MTime`, written
/// atomically, mode 0600. A file manager that finds a valid one reads nothing of the original;
/// without it, it reads every original of the folder whole to draw its own.
///
/// Written for a folder's photos when the folder is listed: the `normal` size first, while the
/// listing waits for them (at most `waitBound`: a file manager looks for them as soon as it has the
/// listing, and makes its own from the original for each one missing), then the `large` size in
/// the background. Each file once per mount and size unless its mtime (its capture time) changed,
/// and not at all when an up-to-date one is there already (a remount; another view of the same
/// photo is another URI). After a scan, `fillAhead` makes the `normal` ones of the newest folders
/// before they are opened, within a share of `-o desktop_thumbnails_size`.
public final class DesktopThumbnails: DesktopThumbnailing {
    /// The specification's sizes: folder name and the side the thumbnail fits.
    public static let sizes: [(folder: String, side: Int)] = [("normal", 128), ("large", 256)]

    /// `$XDG_CACHE_HOME/thumbnails`, its `normal` and `large` folders held open.
    public let folders: DesktopThumbnailFolders
    var root: String { folders.root }
    let mountpoint: String
    let sourceRoot: String
    let renderer: any ThumbnailRendering
    private let log: @Sendable (String) -> Void
    /// Where the passes run: a listed folder's `normal` thumbnails as `.interactive` jobs on
    /// `width` threads, folder after folder (the pool takes its tickets oldest first); the `large`
    /// ones and the fill ahead, which nobody waits for, as `.ahead` jobs one at a time, after them.
    private let pool: WorkerPool
    /// Ends each listing's wait at `waitBound` when its pass has not.
    private let bounds: WaitBounds
    /// Size and URI → the mtime its thumbnail was made for, this mount. Under its own lock.
    private let done = Locked<[String: String]>([:])
    /// Folders whose pass is queued and not begun, with the listings waiting for it: a folder
    /// listed again meanwhile queues no other pass, only its wait.
    private let pending = Locked<[String: [ReadyOnce]]>([:])
    /// Renders at once in a listing's pass: one per render worker, so none idles while a thread encodes.
    let width: Int
    /// What albumfs's thumbnails there may take in all (`-o desktop_thumbnails_size`).
    public static let defaultLimit: Int64 = 512 << 20
    /// Seconds a listing waits for its folder's `normal` thumbnails (docs/cli.md, `-o desktop_thumbnails`).
    public static let defaultWait = 1.5
    public let waitBound: Double
    /// Thumbnails written and failed, and listings answered before their folder's were all made.
    public let written = Atomic<Int>(0)
    public let failed = Atomic<Int>(0)
    public let answeredEarly = Atomic<Int>(0)
    /// The fill ahead after the first scan: asked, finished, and what it wrote.
    private let fillStarted = Atomic<Bool>(false)
    private let fillDone = Atomic<Bool>(false)
    private let filledAhead = Atomic<Int>(0)

    /// - Parameters:
    ///   - cacheHome: `$XDG_CACHE_HOME`, whose `thumbnails` folder file managers read.
    ///   - mountpoint: where the mount is: the thumbnails are named by their files' URIs in it.
    public init(cacheHome: String, mountpoint: String, sourceRoot: String, renderer: any ThumbnailRendering = ThumbnailRenderer(),
                limits: Limits = Limits(), log: @escaping @Sendable (String) -> Void) {
        folders = DesktopThumbnailFolders(root: cacheHome + "/thumbnails", limit: limits.size, log: log)
        self.mountpoint = mountpoint
        self.sourceRoot = sourceRoot
        self.renderer = renderer
        self.waitBound = limits.wait
        self.width = max(1, limits.width)
        self.log = log
        pool = WorkerPool(name: "albumfs-desktop", width: self.width + 1, aheadWidth: 1, idleSeconds: 5)
        bounds = WaitBounds(seconds: limits.wait)
    }

    /// What the writer may take: bytes on disk, a listing's wait, renders at once.
    public struct Limits: Sendable {
        /// What albumfs's thumbnails there may take in all (`-o desktop_thumbnails_size`).
        public var size: Int64
        /// Seconds a listing waits for its folder's `normal` thumbnails (docs/cli.md, `-o desktop_thumbnails`).
        public var wait: Double
        /// Renders at once in a listing's pass (one per render worker).
        public var width: Int

        public init(size: Int64 = DesktopThumbnails.defaultLimit, wait: Double = DesktopThumbnails.defaultWait, width: Int = 3) {
            self.size = size
            self.wait = wait
            self.width = width
        }
    }

    public func listed(folder: String, entries: PhotoEntries, ready: @escaping @Sendable () -> Void) {
        let waiter = ReadyOnce(ready)
        bounds.add(waiter) { [self] in answeredEarly.add(1, ordering: .relaxed) }
        let first = pending.withLock { (queued: inout [String: [ReadyOnce]]) -> Bool in
            defer { queued[folder, default: []].append(waiter) }
            return queued[folder] == nil
        }
        guard first else { return }
        pool.submit(.interactive) { [self] in
            let waiters = pending.withLock { $0.removeValue(forKey: folder) ?? [] }
            let shared = SharedPass(Self.order(entries, first: .max))
            let threads = min(width, shared.order.count)
            let end: @Sendable () -> Void = { [self] in
                waiters.forEach { _ = $0.fire() }
                pool.submit(.ahead) { [self] in pass(folder, entries, size: Self.sizes[1]) }
            }
            guard threads > 0 else { return end() }
            pool.submit(.interactive, width: threads) { [self] in
                run(shared, folder, entries, size: Self.sizes[0])
                // (The last of the pass's threads to end ends the listings' waits.)
                if shared.ended.add(1, ordering: .acquiringAndReleasing).newValue == threads { end() }
            }
        }
    }

    /// The photos of a folder in the order file managers sort names unless told otherwise
    /// (`FileManagerOrder`: the first window's icons come first), the `first` of them.
    static func order(_ entries: PhotoEntries, first: Int) -> ArraySlice<(item: Int, name: String)> {
        FileManagerOrder.sorted((0..<entries.count).map { entries.photo(at: $0) }) { entries.name(ofPhoto: $0) }.prefix(first)
    }

    /// One size of the thumbnails of a folder's photos (`order`), the `first` of them, on this
    /// thread, while `going` says so; how many it wrote.
    @discardableResult
    func pass(_ folder: String, _ entries: PhotoEntries, size: (folder: String, side: Int),
              first: Int = .max, while going: @Sendable () -> Bool = { true }) -> Int {
        let shared = SharedPass(Self.order(entries, first: first))
        run(shared, folder, entries, size: size, while: going)
        return shared.wrote.load(ordering: .relaxed)
    }

    /// Takes the next photo of `shared` and writes its thumbnail, until none is left (or `going`
    /// says stop): the body of each of a pass's threads.
    private func run(_ shared: SharedPass, _ folder: String, _ entries: PhotoEntries, size: (folder: String, side: Int),
                     while going: @Sendable () -> Bool = { true }) {
        while going() {
            let position = shared.next.add(1, ordering: .relaxed).oldValue
            guard position < shared.order.count else { return }
            let (i, name) = shared.order[shared.order.startIndex + position]
            if write(entries.photos[i], uri: Self.uri(mountpoint + "/" + folder + "/" + name), size: size) {
                shared.wrote.add(1, ordering: .relaxed)
            }
        }
    }

    /// After a scan: the `normal` thumbnails of `plan`'s folders in its order, while albumfs's own
    /// take less than half of `-o desktop_thumbnails_size`, so that what is filled ahead never
    /// pushes out what a user opened. Nobody waits for it; listings' passes go first. Once per mount.
    public func fillAhead(_ plan: FillAheadPlan) {
        guard !fillStarted.exchange(true, ordering: .relaxed) else { return }
        pool.submit(.ahead) { [self] in
            let room: @Sendable () -> Bool = { self.folders.bytesUsed < self.folders.limit / 2 }
            let passes = plan.flat.map { ($0, plan.firstEntries) } + (plan.days + plan.flat).map { ($0, Int.max) }
            for (folder, first) in passes where room() {
                filledAhead.add(pass(folder.path, folder.entries, size: Self.sizes[0], first: first, while: room),
                                ordering: .relaxed)
            }
            fillDone.store(true, ordering: .releasing)
        }
    }

    /// What the fill ahead did, for the status: not begun, writing, or done, and how many it wrote.
    public var fillAheadState: String {
        guard fillStarted.load(ordering: .relaxed) else { return "waiting for the scan" }
        let state = fillDone.load(ordering: .acquiring) ? "done" : "filling"
        return "\(filledAhead.load(ordering: .relaxed)) written, \(state)"
    }

    /// One size of one photo's thumbnail, unless it is there for its mtime already; whether it
    /// wrote it.
    func write(_ photo: Photo, uri: String, size: (folder: String, side: Int)) -> Bool {
        // (Whole seconds, as the specification says and GLib checks: a fraction makes GIO call it
        // invalid.)
        let mtime = String(photo.captureInstant.seconds)
        let key = size.folder + " " + uri
        // (Nothing to render: a file manager draws its own "broken" icon. A motion photo's video
        // is a part of its still's file, which the renderers read whole: none is made for it.)
        guard !Unrenderable.any(photo.problems, format: photo.format), !photo.isEmbeddedVideo,
              done.withLock({ $0[key] }) != mtime else { return false }
        defer { done.withLock { $0[key] = mtime } }
        let name = Self.md5(uri) + ".png"
        guard !Self.isCurrent(folders.head(of: name, in: size.folder, count: 1024), mtime: mtime) else { return false }
        do throws(ThumbnailError) {
            let original = try ThumbnailService.openOriginal(photo, sourceRoot: sourceRoot)
            defer { close(original.fd) }
            let image = try renderer.fitting(SourceImage(original, photo), side: size.side)
            try store(image, folder: size.folder, name: name, uri: uri, mtime: mtime)
            written.add(1, ordering: .relaxed)
            return true
        } catch {
            // (The thumbnails/ view says why a photo cannot be rendered; a file manager draws its own.)
            failed.add(1, ordering: .relaxed)
            return false
        }
    }

    /// `image` fitting a `side` square, its shape kept, never enlarged.
    static func fit(_ image: RGBImage, side: Int) -> RGBImage {
        let scale = Double(side) / Double(max(image.width, image.height))
        guard scale < 1 else { return image }
        return Resampler.coverAndCrop(image, width: max(1, Int((Double(image.width) * scale).rounded())),
                                      height: max(1, Int((Double(image.height) * scale).rounded())))
    }

    private func store(_ image: RGBImage, folder: String, name: String, uri: String, mtime: String) throws(ThumbnailError) {
        let png = try PNGWriter.encode(image, text: [("Thumb::URI", uri), ("Thumb::MTime", mtime), ("Software", "albumfs")])
        // (The specification's modes: folders 0700, files 0600.)
        try folders.store(png, as: name, in: folder)
    }

    /// Whether a thumbnail whose first bytes are `head` was made for a file of this mtime (its
    /// `Thumb::MTime` text chunk, which this writer puts in the file's first 1 KiB).
    static func isCurrent(_ head: [UInt8]?, mtime: String) -> Bool {
        guard let head else { return false }
        let key = Array("Thumb::MTime".utf8) + [0]
        guard let at = (8..<max(8, head.count - key.count)).first(where: { head[$0..<($0 + key.count)].elementsEqual(key) }) else { return false }
        // (The chunk's length, 8 bytes before its data, says where the value ends.)
        let length = head[(at - 8)..<(at - 4)].reduce(0) { $0 << 8 | Int($1) }
        guard length >= key.count, at + length <= head.count else { return false }
        return head[(at + key.count)..<(at + length)].elementsEqual(Array(mtime.utf8))
    }

    /// A path's `file://` URI as GLib writes it (`g_filename_to_uri`): its bytes, each escaped as
    /// `%XX` but the unreserved characters and those a path may hold (`!$&'()*+,;=:@/`).
    public static func uri(_ path: String) -> String {
        var out = "file://"
        for byte in FileNameBytes.bytes(path) {
            if isPathCharacter(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return out
    }

    static func isPathCharacter(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: Array("-._~!$&'()*+,;=:@/".utf8).contains(b)
        }
    }

    /// The lowercase hex MD5 of a string's bytes (libmd).
    static func md5(_ text: String) -> String {
        var hex = [CChar](repeating: 0, count: 33)  // MD5_DIGEST_STRING_LENGTH: 32 hex digits and a NUL
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBufferPointer { MD5Data($0.baseAddress, $0.count, &hex) }
        return String(decoding: hex.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A pass over a folder's photos shared by its threads: each takes the next one.
private final class SharedPass: Sendable {
    let order: ArraySlice<(item: Int, name: String)>
    let next = Atomic<Int>(0)
    let wrote = Atomic<Int>(0)
    /// Threads that ran out of photos.
    let ended = Atomic<Int>(0)
    init(_ order: ArraySlice<(item: Int, name: String)>) { self.order = order }
}

/// A listing's wait for its folder's thumbnails, ended once: by the pass or by the bound.
final class ReadyOnce: Sendable {
    private let ready: @Sendable () -> Void
    private let fired = Atomic<Bool>(false)

    init(_ ready: @escaping @Sendable () -> Void) { self.ready = ready }

    /// Calls `ready` unless it was called already; true if this call did.
    func fire() -> Bool {
        guard !fired.exchange(true, ordering: .acquiringAndReleasing) else { return false }
        ready()
        return true
    }

    /// Whether `ready` was called.
    var hasFired: Bool { fired.load(ordering: .acquiring) }
}

/// Listings' waits ended at their bound by one thread, which runs while a wait is open and
/// sleeps on its `Condition` until the oldest one's deadline: every wait has the same bound, so
/// they end in the order they began.
/// (`@unchecked Sendable`: `waits` and `running` are read and written only under `condition`.)
final class WaitBounds: @unchecked Sendable {
    let seconds: Double
    private let condition = Condition()
    /// Open waits, oldest first, each with its deadline and what to do when the bound ends it.
    private var waits: [(deadline: timespec, waiter: ReadyOnce, late: @Sendable () -> Void)] = []
    /// Whether the thread runs (it ends when no wait is open).
    private var running = false

    init(seconds: Double) { self.seconds = seconds }

    /// Ends `waiter` `seconds` from now unless something fired it before, then calls `late`.
    func add(_ waiter: ReadyOnce, late: @escaping @Sendable () -> Void) {
        condition.lock()
        defer { condition.unlock() }
        waits.append((Condition.deadline(in: seconds), waiter, late))
        guard !running else { return }
        running = true
        Threads.detach(name: "albumfs-dtwait") { [self] in endAtBounds() }
    }

    /// The thread: waits for each open wait's deadline in turn and fires it (outside the lock).
    private func endAtBounds() {
        condition.lock()
        while let oldest = waits.first {
            // (Woken early or not at all: the deadline alone ends the wait. One its pass fired
            // before its turn came is not waited for.)
            while !oldest.waiter.hasFired, condition.wait(until: oldest.deadline) {}
            waits.removeFirst()
            condition.unlock()
            if oldest.waiter.fire() { oldest.late() }
            condition.lock()
        }
        running = false
        condition.unlock()
    }
}

/// RGB images as PNG, through libpng's simplified writer (no `longjmp`), with text chunks.
enum PNGWriter {
    static func encode(_ image: RGBImage, text: [(String, String)]) throws(ThumbnailError) -> [UInt8] {
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        png.width = UInt32(image.width)
        png.height = UInt32(image.height)
        png.format = UInt32(PNG_FORMAT_RGB)
        var size = 0
        let stride = Int32(image.width * 3)
        var ok = image.pixels.withUnsafeBytes { png_image_write_to_memory(&png, nil, &size, 0, $0.baseAddress, stride, nil) }
        guard ok != 0, size > 0 else { throw ThumbnailError("PNG: cannot encode") }
        var out = [UInt8](repeating: 0, count: size)
        ok = out.withUnsafeMutableBytes { buffer in
            image.pixels.withUnsafeBytes { png_image_write_to_memory(&png, buffer.baseAddress, &size, 0, $0.baseAddress, stride, nil) }
        }
        png_image_free(&png)
        guard ok != 0 else { throw ThumbnailError("PNG: cannot encode") }
        // The text goes right after IHDR (signature 8 bytes, IHDR 25): found in a file's first bytes.
        let chunks = text.flatMap { chunk("tEXt", Array($0.0.utf8) + [0] + Array($0.1.utf8)) }
        return Array(out[..<33]) + chunks + Array(out[33..<size])
    }

    /// A PNG chunk: length, type, data, CRC of type and data.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        let crc = body.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, UInt32($0.count))) }
        return be32(UInt32(data.count)) + body + be32(crc)
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
}
