import AlbumCore
import AlbumSystem
import AlbumMetadata
import AlbumVFS
import Dispatch
import FoundationEssentials
import Glibc

/// Keeps the mounted tree in step with the library: publishes what the index knows at once,
/// verifies it with a scan in the background (reading only changed files), then follows changes
/// through inotify (bursts debounced) and a periodic rescan as a safety net.
///
/// The scans themselves are the pipeline's (`ScanPipeline`); the coordinator decides when they
/// run and shows what they found. All library state is confined to one serial queue; `status`
/// is readable from any thread. (`@unchecked Sendable`: the library state, the pipeline and what
/// it knows included, is read and written only on `queue`, a serial queue, through accessors
/// that check it (`state`, `onQueue`); what other threads read is in `Locked` values: the
/// status, the invalidation callback, the scan's writer, the watcher.)
public final class LibraryCoordinator: @unchecked Sendable {
    public struct Options: Sendable {
        public var thumbnailBoxes: [ThumbnailBox]
        /// Seconds between periodic rescans (the safety net under inotify, and all there is on
        /// network storage).
        public var rescanInterval: Double
        /// Seconds between periodic rescans that list every folder; those between take folders
        /// whose times are unchanged as they were (`FolderTimes`). 0: every one lists every folder.
        public var fullRescanInterval: Double = 3600
        /// Quiet time that ends a burst of changes.
        public var debounce: Double = 0.25
        /// A file is taken once it was closed after writing (IN_CLOSE_WRITE) with no write since,
        /// or else once its mtime and ctime are this many seconds old.
        public var settle: Double = 1.0
        public var maxWatches: Int?
        /// The top-level views shown (`-o views=`).
        public var views = ShownViews.all
        /// What hashes stills for `duplicates/similar/` (nil: no photo is hashed; the groups the
        /// index holds are still shown).
        public var perceptualHasher: (any PerceptualHasher)? = nil
        public init(thumbnailBoxes: [ThumbnailBox], rescanInterval: Double, maxWatches: Int?) {
            self.thumbnailBoxes = thumbnailBoxes
            self.rescanInterval = rescanInterval
            self.maxWatches = maxWatches
        }
    }

    /// What `.albumfs/status` reports about the library.
    public struct Status: Sendable {
        public var state = "loading"
        public var photos = 0
        public var filesSeen = 0
        /// Images in a format not shown (HEIF with `-o heif=off`).
        public var imagesNotShown = 0
        /// Every file and folder under the library's folder that no view shows, with why, in no
        /// order (sorted when `.albumfs/not-shown` is read: the status needs only their count).
        public var notShown: [NotShownFile] = []
        public var problems: [ScanProblem] = []
        /// Headers read since the mount (zero on a remount of an unchanged library).
        public var headerReads = 0
        public var progressDone = 0
        public var progressTotal = 0
        public var lastScanSeconds = 0.0
        /// What the last scan changed (`ScanDelta.summary`).
        public var lastScanChanges = "none yet"
        /// Folders the last scan listed, and took as they were (their times unchanged).
        public var lastScanFolders = (listed: 0, unchanged: 0)
        public var scans = 0
        public var watchedFolders = 0
        public var watchLimitReached = false
        /// False while the library's own folder cannot be listed (the views keep what they showed).
        public var libraryAvailable = true
        /// Why the index could not be written (its disk full), or nil: set by a scan whose writing
        /// failed, cleared by one that wrote (`IndexWriter.Outcome.failure(after:)`).
        public var indexWriteFailure: Errno?
        /// Files read whose rows are not in the index yet (a first scan writes its rows once its
        /// views are published: `IndexWriter.Holding`).
        public var indexPending = 0
        /// `duplicates/`'s hashing: `off` (the view not shown), `waiting for the scan`,
        /// `hashing N/M` (files read of those to read in this step), `done`.
        public var duplicates = "off"
        /// Groups of files with the same bytes, as last found.
        public var duplicateGroups = 0
        /// Files read for a content hash since the mount (`DuplicateFinder.filesHashed`).
        public var duplicateFilesHashed = 0
        /// `duplicates/similar/`'s hash pass: `off` (the view not shown), `waiting for the scan`,
        /// `hashing N/M` (stills hashed of those to hash in this pass), `done` (its groups shown).
        public var similar = "off"
        /// Stills hashed for similar photos since the mount (`SimilarFinder.filesHashed`).
        public var similarHashed = 0
        /// Stills waiting for their hash in the pass under way (`SimilarFinder.pending`).
        public var similarPending = 0
        /// Groups of similar photos, as last found.
        public var similarGroups = 0
        public init() {}
    }

    let scanner: LibraryScanner
    let index: FileIndexStore?
    let fs: AlbumFileSystem
    let options: Options
    let queue = DispatchQueue(label: "albumfs.library")
    let log: @Sendable (String) -> Void
    let progress: (@Sendable (Int, Int, Bool) -> Void)?
    let invalidate: Locked<(@Sendable (TreeChanges) -> Void)?> = Locked(nil)
    let statusBox = Locked(Status())
    /// Changes seen in SOURCE that the published tree may not show yet, and the trees published:
    /// what an open of a moved photo's file waits on (`LibraryFollowing`).
    public let pending = PendingChanges()
    let firstScan = Promise<Void>()
    /// Every scan's index writes, in order (`IndexWriter`), and the rows not written yet.
    let indexQueue = DispatchQueue(label: "albumfs.index-writer")
    let indexPending = PendingRows()
    /// The writer of the scan going on, told to write what it holds when the mount stops.
    let scanWriter = Locked<IndexWriter?>(nil)

    // Queue-confined: the scans (`ScanPipeline`), and every file they know with its photo's
    // decisions (rules run only when a file changes, so a publish of 100,000 photos does not
    // re-decide them all).
    let pipeline: ScanPipeline
    var state: LibraryState {
        _read {
            dispatchPrecondition(condition: .onQueue(queue))
            yield pipeline.known
        }
        _modify {
            dispatchPrecondition(condition: .onQueue(queue))
            yield &pipeline.known
        }
    }
    /// The rest of what only the queue touches, reached through `onQueue`.
    private var confined: QueueState
    /// What only the coordinator's queue reads and writes; each access checks it runs there
    /// (`dispatchPrecondition`: a trap, not a race, when another thread reaches for it).
    var onQueue: QueueState {
        _read {
            dispatchPrecondition(condition: .onQueue(queue))
            yield confined
        }
        _modify {
            dispatchPrecondition(condition: .onQueue(queue))
            yield &confined
        }
    }
    /// Paths kept in `QueueState.named` at most.
    static let mostNamed = 65_536
    /// Watches the library's folders; set once on the queue by `start`, ended by `stop` (the main
    /// thread).
    let watcher = Locked<FolderWatcher?>(nil)
    /// Whether a publish changed the tree since the views were last saved (`keeper`).
    let viewsUnsaved = Locked(false)
    /// Saves the views between mounts (nil: none kept).
    let keeper: ViewsKeeper?
    /// Finds `duplicates/`'s groups (nil: the view is not shown).
    let duplicates: DuplicateFinder?
    /// Finds `duplicates/similar/`'s groups in the background (nil: not shown, or no hasher).
    let similar: SimilarFinder?

    /// - Parameters:
    ///   - progress: `(done, total, finished)` while headers are read, for a terminal progress line.
    public init(scanner: LibraryScanner, index: FileIndexStore?, fs: AlbumFileSystem, options: Options,
                progress: (@Sendable (Int, Int, Bool) -> Void)? = nil, keeper: ViewsKeeper? = nil,
                log: @escaping @Sendable (String) -> Void) {
        self.keeper = keeper
        let duplicates = options.views.contains(LibraryViews.duplicates)
            ? DuplicateFinder(root: scanner.root, store: index as? ContentHashStore, log: log) : nil
        var scanner = scanner
        scanner.hashesWhileReading = duplicates?.whileReading
        self.duplicates = duplicates
        self.scanner = scanner
        self.index = index
        pipeline = ScanPipeline(scanner: scanner, index: index)
        self.fs = fs
        self.options = options
        self.progress = progress
        self.log = log
        confined = QueueState(availability: LibraryAvailability(root: scanner.root, index: index, log: log))
        if duplicates != nil { statusBox.withLock { $0.duplicates = "waiting for the scan" } }
        similar = options.perceptualHasher.flatMap { hasher in
            options.views.contains(LibraryViews.duplicates)
                ? SimilarFinder(root: scanner.root, store: index as? SimilarHashStore, hasher: hasher, log: log) : nil
        }
        if similar != nil { statusBox.withLock { $0.similar = "waiting for the scan" } }
    }

    public var status: Status {
        var s = statusBox.withLock { $0 }
        s.indexPending = indexPending.count
        s.duplicateFilesHashed = duplicates?.filesHashed.load(ordering: .relaxed) ?? 0
        s.similarHashed = similar?.filesHashed.load(ordering: .relaxed) ?? 0
        s.similarPending = similar?.pending.load(ordering: .relaxed) ?? 0
        return s
    }

    /// Builds the first tree from the index alone (no file is touched): what the mount shows
    /// before the background scan has looked at anything. Rows are decided as they are read, so
    /// the evidence of 100,000 files is never in memory at once.
    public static func libraryFromIndex(_ index: FileIndexStore?, scanner: LibraryScanner, boxes: [ThumbnailBox],
                                        views: ShownViews = .all, log: (String) -> Void) -> (Library, LibraryState) {
        let state = ScanPipeline.known(from: index, scanner: scanner) { log("albumfs: " + $0) }
        // Duplicates as the index's content hashes group them (no file read: the scan hashes
        // what is new).
        let groups = views.contains(LibraryViews.duplicates)
            ? DuplicateFinder.groupsFromIndex(state.photos, store: index as? ContentHashStore) { log("albumfs: " + $0) } : [:]
        let similar = views.contains(LibraryViews.duplicates)
            ? SimilarFinder.groupsFromIndex(state.photos, exact: groups, store: index as? SimilarHashStore) { log("albumfs: " + $0) } : [:]
        let settings = ViewSettings(thumbnailBoxes: boxes, withStatus: true, withPicks: true, views: views, emptyMtime: Timestamp.now)
        return (LibraryViews.build(photos: state.photos, settings.grouping(duplicates: state.byPhoto(groups), similar: state.byPhoto(similar))),
                state)
    }

    /// Takes what the index knew (`libraryFromIndex`; nil: the tree shown came from a views
    /// snapshot, and what the index knows is read here, in the background), starts the background
    /// scan, then watching. `invalidate` reaches the kernel's caches.
    public func start(known: LibraryState?, invalidate: @escaping @Sendable (TreeChanges) -> Void) {
        self.invalidate.withLock { $0 = invalidate }
        // A file found replaced or changed when opened is read again with its folder
        // (`LibraryCoordinator+Following`).
        fs.follow(self)
        queue.async { [self] in
            onQueue.treeFromSnapshot = known == nil
            state = known ?? knownOnceChecked()
            // The groups the tree shown holds (`libraryFromIndex`, or the views snapshot saved with
            // them): a scan that finds them unchanged keeps that tree.
            if duplicates != nil {
                onQueue.duplicateGroups = DuplicateFinder.groupsFromIndex(state.photos, store: index as? ContentHashStore) { [log] in log("albumfs: " + $0) }
                onQueue.similarGroups = SimilarFinder.groupsFromIndex(state.photos, exact: onQueue.duplicateGroups, store: index as? SimilarHashStore) { [log] in
                    log("albumfs: " + $0)
                }
            }
            let watcher = FolderWatcher(maxWatches: options.maxWatches, onChange: { [weak self] path, entries in self?.changed(path, entries) },
                                        onMountsChanged: { [weak self] in self?.mountsChanged() }, warn: log)
            self.watcher.withLock { $0 = watcher }
            watcher?.start()
            fullScan(first: true)
            firstScan.fulfil(())
            schedulePeriodicRescan()
        }
    }

    /// What the index knows, behind a tree from a views snapshot: the index, opened without its
    /// check so that the mount could answer first (`LibraryIndex.damage`), is checked here. A
    /// damaged one is not read: this mount reads every file, and its snapshot is deleted, so the
    /// next mount checks the index before anything else and moves it aside for a new one.
    func knownOnceChecked() -> LibraryState {
        if let damage = index?.damage() {
            log("albumfs: warning: the index is damaged (\(damage)); every file is read again, and the next mount moves it aside")
            keeper?.discard()
            return LibraryState()
        }
        return ScanPipeline.known(from: index, scanner: scanner) { [log] in log("albumfs: " + $0) }
    }

    /// Waits up to `seconds` for the first scan to finish; true if it did.
    public func waitForFirstScan(seconds: Double) -> Bool {
        firstScan.wait(seconds: seconds) != nil
    }

    /// Stops following the library. A first scan still reading writes the rows it holds (a long
    /// scan's progress is kept for the next mount), and every write handed in so far is waited for.
    public func stop() {
        watcher.withLock { $0 }?.stop()
        similar?.stop(seconds: SimilarFinder.longestYield + 5)
        scanWriter.withLock { $0 }?.stopHolding()
        indexQueue.sync {}
        // The views as the index now holds them, for the next mount; not a tree a scan is still
        // filling in (the next mount then builds its views from the index).
        if let keeper, statusBox.withLock({ $0.state == "done" }) {
            keeper.save(fs.library, changed: viewsUnsaved.withLock { v in defer { v = false }; return v })
        }
    }

    // MARK: Changes

    /// Called by the watcher (any thread) with the absolute path of a folder that changed ("":
    /// events were lost, the library is to be walked).
    func changed(_ absolutePath: String, _ entries: [(name: String, complete: Bool)]) {
        let root = scanner.root
        let lost = absolutePath.isEmpty
        let relative = absolutePath == root ? "" : absolutePath.hasPrefix(root + "/") ? String(absolutePath.dropFirst(root.count + 1)) : ""
        // Counted at once: an `open` of a photo whose file moved waits for the tree that shows it.
        let change = pending.report()
        queue.async { [self] in
            onQueue.absorbedChange = max(onQueue.absorbedChange, change)
            if lost { onQueue.eventsLost = true }
            for entry in entries {
                let path = relative.isEmpty ? entry.name : relative + "/" + entry.name
                if entry.complete { onQueue.wholeFiles.insert(path) } else { onQueue.wholeFiles.remove(path) }
                if onQueue.named.count < Self.mostNamed { onQueue.named.insert(path) }
            }
            onQueue.dirty.insert(relative)
            if onQueue.burstStart == nil { onQueue.burstStart = Date() }
            guard !onQueue.flushScheduled else { return }
            onQueue.flushScheduled = true
            queue.asyncAfter(deadline: .now() + options.debounce) { [self] in
                onQueue.flushScheduled = false
                flush()
            }
        }
    }

    /// A disk was mounted or unmounted somewhere: an unavailable library may be back (inotify
    /// cannot tell: the folder under a new mount is untouched). An available one is left alone;
    /// its own disk going away shows through inotify (IN_UNMOUNT).
    func mountsChanged() {
        queue.async { [self] in
            guard !onQueue.availability.isAvailable else { return }
            changed(scanner.root, [])
        }
    }

    /// Rescans the dirty folders, outermost only (a folder inside another dirty one is covered).
    /// Below them, a folder whose times are unchanged since the last walk is taken as it was
    /// (`FolderTimes`) unless inotify named it too, as long as inotify names every change: a
    /// folder renamed is an event of its parent, whose other folders are not walked again for it.
    func flush() {
        guard !onQueue.dirty.isEmpty else { return }
        let folders = onQueue.dirty.sorted()
        var outermost: [String] = []
        for f in folders where !outermost.contains(where: { f.isWithin(folder: $0) }) {
            outermost.append(f)
        }
        let mustList = eventsTrusted ? onQueue.dirty : nil
        onQueue.dirty.removeAll()
        onQueue.eventsLost = false
        onQueue.burstStart = nil
        let covered = onQueue.absorbedChange
        rescan(outermost, skippingUnchangedBut: mustList, named: takeNamed())
        pending.shown(through: covered)
    }

    /// Whether the folders inotify named since the last rescan are every folder that changed:
    /// every folder is watched (not at the watch limit), no event was lost (the kernel's queue
    /// overflowed) and folder times are trusted at all (`-o full_rescan=0` says they are not).
    var eventsTrusted: Bool {
        guard let watcher = watcher.withLock({ $0 }), !watcher.isAtLimit, !onQueue.eventsLost else { return false }
        return options.fullRescanInterval != 0
    }

    /// The paths named since the last rescan, forgotten here.
    func takeNamed() -> Set<String> {
        defer { onQueue.named = [] }
        return onQueue.named
    }

    func schedulePeriodicRescan() {
        queue.asyncAfter(deadline: .now() + options.rescanInterval) { [self] in
            periodicRescan()
            schedulePeriodicRescan()
        }
    }

    /// The whole library walked again. Folders whose times are unchanged since the last walk are
    /// taken as they were, but those inotify named since (a file in them rewritten in place
    /// leaves their times as they were); every `fullRescanInterval` every folder is listed.
    func periodicRescan() {
        let full = options.fullRescanInterval == 0 || Date().timeIntervalSince(onQueue.lastFullWalk) >= options.fullRescanInterval
        let mustList = onQueue.dirty
        onQueue.dirty.removeAll()
        onQueue.burstStart = nil
        let covered = onQueue.absorbedChange
        rescan([""], skippingUnchangedBut: full ? nil : mustList, named: takeNamed())
        pending.shown(through: covered)
    }
}
