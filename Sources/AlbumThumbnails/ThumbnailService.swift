import AlbumCore
import AlbumSystem
import FoundationEssentials
import Glibc
import Synchronization

/// Serves thumbnails to the views: from the cache, or rendered once on first read.
///
/// Many readers of the same uncached thumbnail cause one render (single flight); renders run in
/// parallel, their decodes up to the core count at once (large ones one at a time: `DecodeMemory`);
/// a failure is remembered until the source changes (its key does, or the scan reads it again: a
/// repair in place), except a failure to read the original, which the next read tries again
/// (logged once).
public final class ThumbnailService: ThumbnailProvider, Sendable {
    public let boxes: [ThumbnailBox]
    private let renderer: any ThumbnailRendering
    private let cache: ThumbnailCache?
    private let log: @Sendable (String) -> Void
    private let debug: Bool
    /// In-flight renders and remembered failures, by cache key (which holds the photo's ctime when
    /// read: a photo repaired in place gets another key, so it is tried again).
    private let state = Locked(State())
    private let renders = Atomic<Int>(0)
    private let rendersAhead = Atomic<Int>(0)
    /// At most this many renders asked for ahead of a reader run at once (`prepare`); 0: none.
    public let renderAhead: Int
    /// Where renders asked for ahead run, as `.ahead` jobs (each bounded by `renderAhead` and
    /// `DecodeMemory`): in a mount, the pool that answers thumbnails' first reads.
    private let aheadPool: WorkerPool

    private struct State {
        var inFlight: [String: Flight] = [:]
        var failures: [String: ThumbnailFailure] = [:]
        /// Keys whose original could not be read, logged already.
        var readFailuresLogged: Set<String> = []
        /// Why the cache could not be written, each said once (a full disk is said, not hidden).
        var cacheFailuresLogged: Set<Errno> = []
        /// Why the last write to the cache failed; nil once one succeeds again.
        var cacheWriteFailure: Errno?
        /// Rendered in memory when there is no cache folder (bounded, oldest dropped).
        var memory: [String: [UInt8]] = [:]
        var memoryOrder: [String] = []
        /// Renders asked for ahead that run now (at most `renderAhead`).
        var aheadRunning = 0
        /// Failures met by renders asked for ahead and by no read yet: the thumbnail stays listed
        /// until a read meets its failure (a reader that listed the folder gets EIO, as it would
        /// have without the render ahead, not ENOENT), then leaves the listing.
        var failedUnread: Set<String> = []
        /// Failures kept by the index from an earlier mount, by path: they hold while their photo
        /// is the same file (identity and ctime when read), with no render tried.
        var recorded: [String: RecordedThumbnailFailure] = [:]
        /// Failures handed to `record` already (each is written once).
        var kept: Set<RecordedThumbnailFailure> = []
    }

    /// One render's result, given by its leader to the reads that wait for it.
    private typealias Flight = Promise<Result<[UInt8], ThumbnailError>>

    /// Thumbnails kept in memory at most while the cache cannot be written (`Options.memoryCap`).
    private let memoryCap: Int
    /// Keeps a failure from a photo's content beyond this mount (the index); must return at once.
    private let record: (@Sendable (RecordedThumbnailFailure) -> Void)?

    /// - Parameters:
    ///   - options: how many thumbnails it keeps in memory without a cache, how many renders it
    ///     makes ahead of a reader and where, whether it logs each render's plan.
    ///   - failures: the failures from photos' content an earlier mount kept, and where this one
    ///     keeps its own.
    public init(boxes: [ThumbnailBox], cache: ThumbnailCache?, renderer: any ThumbnailRendering = ThumbnailRenderer(),
                options: Options = Options(), failures: KeptFailures = .none, log: @escaping @Sendable (String) -> Void) {
        self.boxes = boxes
        self.renderAhead = max(0, options.ahead)
        aheadPool = options.pool ?? WorkerPool(name: "albumfs-ahead", width: max(1, options.ahead), idleSeconds: nil)
        self.cache = cache
        self.memoryCap = options.memoryCap
        self.renderer = renderer
        self.debug = options.debug
        self.log = log
        self.record = failures.record
        let recorded = Dictionary(failures.recorded.map { ($0.relativePath, $0) }, uniquingKeysWith: { _, last in last })
        state.withLock {
            $0.recorded = recorded
            $0.kept = Set(recorded.values)
        }
    }

    /// How many renders ran (for tests and status).
    public var renderCount: Int { renders.load(ordering: .relaxed) }
    /// How many of them were asked for ahead of a reader (`prepare`).
    public var renderAheadCount: Int { rendersAhead.load(ordering: .relaxed) }
    public var cacheBytes: Int64 { cache?.bytesUsed ?? 0 }
    /// The photos whose content could not be made into a thumbnail, one each (whatever the boxes
    /// tried), as they were then: the caller keeps those still shown unchanged. Failures to read
    /// the original are not among them (they are tried again; the scan names an unreadable file).
    public func unrenderable() -> [UnrenderablePhoto] {
        state.withLock { s in
            (s.failures.isEmpty ? [] : s.failures.compactMap { key, failure in
                s.failedUnread.contains(key) ? nil : UnrenderablePhoto(relativePath: failure.photo.relativePath, identity: failure.photo.identity,
                                                                       changedWhenRead: failure.photo.changedWhenRead)
            }) + s.recorded.values.map { UnrenderablePhoto(relativePath: $0.relativePath, identity: $0.identity, changedWhenRead: $0.changedWhenRead) }
        }
    }

    public func failures() -> [ThumbnailFailure] {
        var seen = Set<ThumbnailFailure.Photo>()
        return state.withLock { s in
            s.failures.values.filter { seen.insert($0.photo).inserted }
                + s.recorded.values.map { ThumbnailFailure(photo: .init(relativePath: $0.relativePath, identity: $0.identity,
                                                                       changedWhenRead: $0.changedWhenRead), error: ThumbnailError($0.reason)) }
                    .filter { seen.insert($0.photo).inserted }
        }
    }

    /// The failure an earlier mount kept for `photo`, if it is still the file that failed.
    private static func recordedFailure(of photo: Photo, _ s: State) -> RecordedThumbnailFailure? {
        guard let r = s.recorded[photo.relativePath], r.identity == photo.identity, r.changedWhenRead == photo.changedWhenRead else { return nil }
        return r
    }

    public func warmUp() { renderer.warmUp() }

    /// Why the cache's last write failed (its disk full), or nil when writes succeed (status).
    public var cacheWriteFailure: Errno? { state.withLock { $0.cacheWriteFailure } }

    public func size(for box: ThumbnailBox) -> Int64 { Int64(FixedSizeJPEG.size(for: box.width, box.height)) }

    public func thumbnail(of photo: Photo, sourceRoot: String, box: ThumbnailBox) -> Result<[UInt8], Errno> {
        thumbnailOrError(of: photo, sourceRoot: sourceRoot, box: box).mapError { $0.isMissing ? Errno.notFound : Errno.ioError }
    }

    /// Renders the thumbnail in the background unless it is made, being made or failed, or
    /// `renderAhead` renders asked for ahead run already (then nothing: the reader asks again for
    /// the next ones as it reads). A reader that then reads it takes it from the cache, or waits
    /// for this render (single flight). A failure is remembered as a read's is, but the thumbnail
    /// leaves the listing only once a read meets it (`State.failedUnread`).
    public func prepare(_ photo: Photo, sourceRoot: String, box: ThumbnailBox) {
        let key = ThumbnailCache.key(of: photo, box: box)
        let start = state.withLock { s -> Bool in
            guard s.aheadRunning < renderAhead, s.inFlight[key] == nil, s.failures[key] == nil, s.memory[key] == nil,
                  Self.recordedFailure(of: photo, s) == nil else { return false }
            s.aheadRunning += 1
            return true
        }
        guard start else { return }
        aheadPool.submit(.ahead) { [self] in
            defer { state.withLock { $0.aheadRunning -= 1 } }
            _ = thumbnailOrError(of: photo, sourceRoot: sourceRoot, box: box, ahead: true)
        }
    }

    private enum Step {
        case done(Result<[UInt8], ThumbnailError>)
        case wait(Flight)
        case render(Flight)
    }

    /// The single-flight core: one leader renders, everyone else waits for its result.
    /// - Parameter sourceRoot: the library's folder, beneath which the photo's file is opened and
    ///   checked to be the file scanned (`SourceOpening.scanned`).
    public func thumbnailOrError(of photo: Photo, sourceRoot: String, box: ThumbnailBox) -> Result<[UInt8], ThumbnailError> {
        let result = thumbnailOrError(of: photo, sourceRoot: sourceRoot, box: box, ahead: false)
        if case .failure = result {
            let key = ThumbnailCache.key(of: photo, box: box)
            state.withLock { s in if !s.failedUnread.isEmpty { s.failedUnread.remove(key) } }
        }
        return result
    }

    /// - Parameter ahead: whether a reader asked for it ahead (`prepare`), not read it.
    private func thumbnailOrError(of photo: Photo, sourceRoot: String, box: ThumbnailBox, ahead: Bool) -> Result<[UInt8], ThumbnailError> {
        let key = ThumbnailCache.key(of: photo, box: box)
        if let bytes = cache?.read(key, expectedSize: Int(size(for: box))) { return .success(bytes) }
        let step = state.withLock { s -> Step in
            if let bytes = s.memory[key] { return .done(.success(bytes)) }
            if let f = s.failures[key] { return .done(.failure(f.error)) }
            if let r = Self.recordedFailure(of: photo, s) { return .done(.failure(ThumbnailError(r.reason))) }
            if let f = s.inFlight[key] { return .wait(f) }
            let f = Flight()
            s.inFlight[key] = f
            return .render(f)
        }
        switch step {
        case .done(let result):
            return result
        case .wait(let flight):
            return flight.wait()
        case .render(let flight):
            // (One made by another flight that ended between this call's look in the cache and
            // the lock is taken from the cache, not made again: a render ahead of a reader and
            // the reader's own read often meet so.)
            let cached = cache?.read(key, expectedSize: Int(size(for: box)))
            let result = cached.map { .success($0) } ?? render(photo, sourceRoot: sourceRoot, box: box, ahead: ahead)
            // Disk first, outside the lock; memory only when the cache cannot take it.
            var stored = cached != nil
            if !stored, case .success(let bytes) = result, let cache {
                do {
                    try cache.write(key, bytes)
                    stored = true
                    state.withLock { $0.cacheWriteFailure = nil }
                } catch {
                    let first = state.withLock { s in
                        s.cacheWriteFailure = error
                        return s.cacheFailuresLogged.insert(error).inserted
                    }
                    if first {
                        log("albumfs: warning: thumbnail cache \(cache.directory) cannot be written (\(error)); "
                            + "thumbnails are kept in memory while it cannot")
                    }
                }
            }
            var kept: RecordedThumbnailFailure?
            let firstFailure = state.withLock { s -> Bool in
                s.inFlight[key] = nil
                switch result {
                case .success(let bytes):
                    if !stored { remember(&s, key, bytes) }
                    s.readFailuresLogged.remove(key)
                    return false
                case .failure(let e) where e.isMissing:
                    return false  // (the caller follows the move, or says the file is gone)
                case .failure(let e) where e.isReadFailure:
                    return s.readFailuresLogged.insert(key).inserted
                case .failure(let e):
                    if ahead { s.failedUnread.insert(key) }
                    s.failures[key] = ThumbnailFailure(photo: .init(relativePath: photo.relativePath, identity: photo.identity,
                                                                           changedWhenRead: photo.changedWhenRead), error: e)
                    let failure = RecordedThumbnailFailure(relativePath: photo.relativePath, identity: photo.identity,
                                                           changedWhenRead: photo.changedWhenRead, reason: e.description)
                    if s.kept.insert(failure).inserted { kept = failure }
                    return true
                }
            }
            if firstFailure, case .failure(let e) = result { log("albumfs: cannot make a thumbnail of \(photo.relativePath): \(e)") }
            if let kept, let record { record(kept) }
            flight.fulfil(result)
            return result
        }
    }

    private func remember(_ s: inout State, _ key: String, _ bytes: [UInt8]) {
        s.memory[key] = bytes
        s.memoryOrder.append(key)
        while s.memoryOrder.count > memoryCap { s.memory[s.memoryOrder.removeFirst()] = nil }
    }

    /// The photo's file opened for a render (no access time written), checked to be the file
    /// scanned: a file replaced or rewritten since is "not found" until the scan reads it again.
    static func openOriginal(_ photo: Photo, sourceRoot: String) throws(ThumbnailError) -> OpenedSource {
        do { return try SourceOpening.scanned(ScannedFile(photo), beneath: sourceRoot) } catch { throw .original("open", error) }
    }

    private func render(_ photo: Photo, sourceRoot: String, box: ThumbnailBox, ahead: Bool) -> Result<[UInt8], ThumbnailError> {
        // (Decodes run one per core at a time, large ones one at a time: `DecodeMemory`.)
        do {
            let original = try Self.openOriginal(photo, sourceRoot: sourceRoot)
            defer { close(original.fd) }
            renders.add(1, ordering: .relaxed)  // (a file not found is no render: it is followed, or gone)
            if ahead { rendersAhead.add(1, ordering: .relaxed) }
            let made = try renderer.thumbnail(SourceImage(original, photo), box: box)
            if debug { log("albumfs: debug: thumbnail \(box) of \(photo.relativePath): \(made.plan)") }
            return .success(made.bytes)
        } catch {
            return .failure(error)
        }
    }
}

/// A photo whose thumbnail could not be made, and why.
public struct ThumbnailFailure: Sendable {
    /// The photo as it was when it failed: a changed file (new identity, or read again after a
    /// rewrite in place: another ctime when read) is another photo.
    public struct Photo: Hashable, Sendable {
        public let relativePath: String
        public let identity: FileIdentity
        public let changedWhenRead: Timestamp?

        /// Whether `photo` is this one as it is now.
        public func isStill(_ photo: AlbumCore.Photo?) -> Bool {
            photo?.identity == identity && photo?.changedWhenRead == changedWhenRead
        }
    }
    public let photo: Photo
    public let error: ThumbnailError
}

extension ThumbnailService {
    /// How a service runs, beside its boxes, cache and renderer (each has a default).
    public struct Options: Sendable {
        /// Thumbnails kept in memory at most while the cache cannot be written, the last ones made
        /// (1,000 of 200x200 are ~30 MB).
        public var memoryCap: Int
        /// How many renders asked for ahead of a reader (`prepare`) run at once (0: none).
        public var ahead: Int
        /// Where they run (nil: a pool of `ahead` threads of the service's own).
        public var pool: WorkerPool?
        /// Whether each render's plan is logged (`-d`).
        public var debug: Bool

        public init(memoryCap: Int = 1000, ahead: Int = 0, pool: WorkerPool? = nil, debug: Bool = false) {
            self.memoryCap = memoryCap
            self.ahead = ahead
            self.pool = pool
            self.debug = debug
        }
    }

    /// The failures from photos' content kept beyond a mount (the index's): those an earlier mount
    /// kept, and where this one keeps its own.
    public struct KeptFailures: Sendable {
        /// Kept by an earlier mount: their thumbnails are not listed, and a read answers the
        /// failure kept, while their photo is the same file.
        public var recorded: [RecordedThumbnailFailure]
        /// Keeps each failure met from a photo's content; called on the request's thread, so it
        /// must not wait for its write.
        public var record: (@Sendable (RecordedThumbnailFailure) -> Void)?

        /// None kept, none to keep (a service without an index).
        public static let none = KeptFailures()

        public init(recorded: [RecordedThumbnailFailure] = [], record: (@Sendable (RecordedThumbnailFailure) -> Void)? = nil) {
            self.recorded = recorded
            self.record = record
        }
    }
}
