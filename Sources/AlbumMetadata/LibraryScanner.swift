import AlbumCore
import AlbumSystem
import Dispatch
import FoundationEssentials
import Glibc

/// Walks a library folder and reads every photo's header, on every core.
///
/// Hidden entries and thumbnail/system folders are skipped, symlinks are never followed, and a
/// file reached twice through hard links is listed once (by device and inode, where inode numbers
/// name files: `InodeNumbers`).
public struct LibraryScanner: Sendable {
    public let root: String
    public let rules: ScanRules
    /// What each filesystem's inode numbers are worth (shared by every copy of the scanner).
    let inodes = InodeNumbers()
    /// The folders holding files named like sidecars, as the walks listed them (shared likewise).
    let sidecarFolders = SidecarFolders()
    let cameraNames = CameraNameCache()
    /// The header reads of a scan, sharing this scanner's inode numbers and sidecar folders.
    var headers: HeaderReader {
        HeaderReader(root: root, formats: rules.formats, inodes: inodes, sidecarFolders: sidecarFolders, hashesWhileReading: hashesWhileReading)
    }
    /// The walk of the library's folders, sharing this scanner's inode numbers and sidecar folders.
    var walker: LibraryWalk { LibraryWalk(root: root, excluded: excluded, inodes: inodes, sidecarFolders: sidecarFolders) }

    /// Folder names that hold thumbnails, NAS metadata or trash, never photos of the library.
    public static let skippedNames: Set<String> = [
        "@eaDir", "@__thumb", "#recycle", "#snapshot", "$RECYCLE.BIN", "System Volume Information",
        "lost+found",
        // Windows' recycle bin as its system drive spells it, and Windows XP's; QNAP's recycle
        // bin and snapshots (Synology's are above).
        "$Recycle.Bin", "RECYCLER", "@Recycle", "@Recently-Snapshot",
    ]
    /// Extensions of files that are photos even when their content cannot be read to prove it
    /// (HEIF's only where HEIF images are shown: `NameHint`).
    public static let photoExtensions = Set<String>(["jpg", "jpeg", "jpe", "png", "heic", "heif", "hif", "avif",
                                                      "mov", "mp4", "m4v", "3gp", "3g2", "webp", "gif", "tif", "tiff", "jxl"])
        .union(ImageFormat.rawExtensions)

    /// An absolute folder never to enter: the mount point, when it lies inside the library.
    public let excluded: String?
    /// Whether reader threads read files' first blocks a chunk at a time through io_uring
    /// (`ReadRing`), when the kernel allows it; false reads file by file (`pread`), as a kernel
    /// without io_uring does.
    public var batchedReads = true
    /// Where reader threads leave `duplicates/`'s hashes of the files they read whole (nil: the
    /// view is not shown, and nothing is hashed).
    public var hashesWhileReading: HashesWhileReading?
    /// Whether the library is on network storage (`NetworkStorage`): each open and read there is
    /// a round trip to a server, so many more are kept in flight, file by file.
    public let onNetworkStorage: Bool

    /// How a scan reads headers.
    public enum ReadMethod: String, Sendable {
        /// A chunk of files per submission (`ReadRing`).
        case ioUring = "io_uring"
        /// File by file: asked for (`batchedReads` false), the kernel offers no io_uring, or the
        /// library is on network storage (a ring reads in a few threads, but opens one at a time).
        case pread
    }

    public var readMethod: ReadMethod { batchedReads && !onNetworkStorage && ReadRing.isAvailable ? .ioUring : .pread }

    public init(root: String, rules: ScanRules, excluding excluded: String? = nil) {
        self.root = root
        self.rules = rules
        onNetworkStorage = NetworkStorage.holds(root)
        self.excluded = excluded
    }

    /// The second half: reads the headers of `items` on every core. `progress(done, total)` is
    /// called from worker threads as chunks finish.
    public func read(_ items: [(path: String, identity: FileIdentity)], progress: (@Sendable (Int, Int) -> Void)? = nil) -> [IndexedFile] {
        let stream = readStream(decides: false, progress: progress)
        let batch = stream.add(items)
        stream.end()
        return batch.take().map(\.file)
    }

    /// Reads, and decides photos (on the reader threads: a mount needs both, and deciding is a
    /// tenth of a scan's CPU time), for files handed in batch after batch while a walk goes on.
    /// What a survey walks, and what it takes as it finds it (`surveyAndRead`; `survey` names
    /// each the same way).
    public struct SurveyRequest {
        /// Relative, "" for the whole library.
        public var folder: String
        /// Files changed after this may still be being written, and wait (nil: take everything).
        public var settledBefore: Timestamp?
        /// Files known to be written completely: taken at once.
        public var complete: Set<String>
        /// Where files new at their path are looked up by their identity.
        public var moves: MoveLookup?
        /// What the caller holds decided already, asked before `moves` (and only with it).
        public var held: KnownMoves?
        /// The folder times noted, and whether folders unchanged are taken as they were.
        public var folders: FolderWalk?
        /// Each folder the walk enters (absolute path).
        public var onFolder: (String) -> Void

        public init(folder: String = "", settledBefore: Timestamp? = nil, complete: Set<String> = [], moves: MoveLookup? = nil,
                    held: KnownMoves? = nil, folders: FolderWalk? = nil, onFolder: @escaping (String) -> Void = { _ in }) {
            self.folder = folder
            self.held = held
            self.settledBefore = settledBefore
            self.complete = complete
            self.moves = moves
            self.folders = folders
            self.onFolder = onFolder
        }
    }

    /// A survey whose files are read as the walk finds them: each batch of `readBatch` files goes
    /// to the reader threads at once (`decidingStream`; `onRead` sees each batch as it is read),
    /// and `handedOff` gets each batch, for its caller to merge what is read while the walk goes
    /// on. The mount's scans and `albumfs index` both scan this way (`ConcurrentWalk`). The
    /// stream is ended before this returns.
    public func surveyAndRead(_ request: SurveyRequest, previous: some KnownFiles, onRead: (@Sendable (inout [ReadStream.Read]) -> Void)?,
                              progress: (@Sendable (Int, Int) -> Void)?, handedOff: @escaping (ReadStream.Batch) -> Void) -> Survey {
        let stream = decidingStream(onBatch: onRead, progress: progress)
        defer { stream.end() }
        return survey(request, previous: previous, batches: (Self.readBatch, { handedOff(stream.add(Array($0))) }))
    }

    public func decidingStream(onBatch: (@Sendable (inout [ReadStream.Read]) -> Void)? = nil,
                               progress: (@Sendable (Int, Int) -> Void)? = nil) -> ReadStream {
        readStream(decides: true, onBatch: onBatch, progress: progress)
    }

    private func readStream(decides: Bool, onBatch: (@Sendable (inout [ReadStream.Read]) -> Void)? = nil,
                            progress: (@Sendable (Int, Int) -> Void)?) -> ReadStream {
        // Reading headers waits on the disk far more than it computes: with only one request in
        // flight per core, a cold scan runs at the disk's single-request latency. Several threads
        // per core keep the device's queue full; with a ring, each thread has a chunk of reads
        // in flight, and fewer threads do (each
        // holds a chunk's buffers).
        let perCore = readMethod == .ioUring ? Self.ringReadersPerCore : Self.readersPerCore
        let threads = onNetworkStorage ? Self.networkReaders : max(4, Self.cores * perCore)
        return ReadStream(scanner: self, maxThreads: threads, decides: decides, onBatch: onBatch, progress: progress)
    }

    /// Cores this process may use (asked once: FoundationEssentials reads the cgroup's CPU quota
    /// from /sys on every call, and every scan would ask).
    static let cores = ProcessInfo.processInfo.activeProcessorCount

    /// Reader threads per core for header reads (I/O-bound work), file by file.
    static let readersPerCore = 8
    /// The same, reading a chunk at a time through a ring: cached, any count reads in the same
    /// time; cold, 2 or 3 per core do best (docs/benchmarks.md).
    static let ringReadersPerCore = 2
    /// Reader threads for a library on network storage, however many cores: each waits a round
    /// trip per open and per read, computing next to nothing (docs/benchmarks.md).
    static let networkReaders = 64
    /// Files a walk hands to the readers at a time (`survey`'s `batches`): reading starts once a
    /// walk has found this many, and the index is written a batch at a time.
    public static let readBatch = 2000
    /// Files new at their path looked up as moves (`survey`'s `MoveLookup`) at a time (one index transaction).
    static let lookupBatch = 256

    /// The reader threads, shared by every scan (kept between the batches of one, ended after 5 s
    /// idle: an idle mount holds none); as many as the scans' streams ask for.
    static let readers = WorkerPool(name: "albumfs-reader", width: nil, idleSeconds: 5)

    /// Whether a file last changed at `stamp` may still be being written: changed after
    /// `settledBefore`, and not so far after it that the stamp is a wrong clock (a camera's, kept
    /// by `cp -p` or an unzip: a write going on now is stamped about now, give or take a share's
    /// clock), which would otherwise be deferred until its stamp had passed, its folder rescanned
    /// every second until then.
    static func mayBeBeingWritten(_ stamp: Timestamp, settledBefore: Timestamp) -> Bool {
        stamp > settledBefore && stamp.seconds <= settledBefore.seconds + wrongClockSeconds
    }

    /// How far ahead of the settle edge a file's stamp is taken for a wrong clock (a minute, and
    /// the settle time).
    static let wrongClockSeconds: Int64 = 61

    /// A photo with every rule applied, or nil for files that are not photos (or of a format not
    /// shown: `ScanRules.formats`).
    public func photo(from file: IndexedFile) -> Photo? {
        var cameras = CameraNameCache.Memo()
        return photo(from: file, cameras: &cameras)
    }

    /// The same, the camera's code through a reader thread's `cameras`.
    public func photo(from file: IndexedFile, cameras: inout CameraNameCache.Memo) -> Photo? {
        guard case .photo(let format, _) = file.kind, rules.shows(format) else { return nil }
        return file.withPhotoEvidence { e in decided(file, format, e, cameras: &cameras) }
    }

    private func decided(_ file: borrowing IndexedFile, _ format: ImageFormat, _ e: borrowing PhotoEvidence,
                         cameras: inout CameraNameCache.Memo) -> Photo {
        let relativePath = file.relativePath
        // The place first: its zone dates a time written without an offset.
        let position = PlaceRules.position(e, format: format)
        let place = PlaceRules.city(of: position, in: Gazetteer.system)
        let decisions = rules.decisions(e, format: format, relativePath: relativePath, fileMtime: file.identity.mtime,
                                        placeZone: PlaceRules.zone(of: place))
        var photo = Photo(relativePath: relativePath, format: format, identity: file.identity, decisions: decisions,
                          changedWhenRead: file.changedWhenRead, access: e.access)
        photo.liveIdentifier = e.contentIdentifier.map(LivePhotos.identifierKey) ?? 0
        let burst = format.isStill ? e.kinds.burstIdentifier.map { [Photo.burstAttribute, $0] } ?? [] : []
        if e.sidecar != nil || !burst.isEmpty { photo.sidecarAttributes = (e.sidecar?.attributes ?? []) + burst }
        photo.kindSignals = UInt16(truncatingIfNeeded: MediaKindRules.signals(e.kinds, format: format))
        if format.isStill { photo.motionVideo = e.motionVideo }
        photo.cameraCode = cameraNames.code(make: e.make, model: e.model, memo: &cameras)
        if let (rating, source) = FavoriteRules.rating(e) {
            photo.rating = rating
            photo.ratingSource = source
        }
        // The favourite mark only a sidecar gives (Takeout's `favorited`) is the rule's second input.
        photo.isFavorite = rules.favorites.isFavorite(rating: photo.rating, favorited: e.sidecar?.favorited)
        photo.position = position
        photo.place = place
        return photo
    }
}
