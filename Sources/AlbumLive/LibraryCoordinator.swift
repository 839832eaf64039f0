import AlbumCore
import AlbumSystem
import AlbumMetadata
import AlbumVFS
import Dispatch
import FoundationEssentials

/// Keeps the mounted tree in step with the library: publishes what the index knows at once,
/// verifies it with a scan in the background (reading only changed files), then follows changes
/// through inotify (bursts debounced) and a periodic rescan as a safety net.
///
/// The coordinator owns the serial queue every scan runs on and what the parts share there: the
/// `ChangeFollower` decides when scans run (inotify, the clock), `LibraryScans` runs them through
/// the pipeline (`ScanPipeline`), and the `TreePublisher` shows what they found (the views, the
/// kernel told, the status). `status` is readable from any thread.
public final class LibraryCoordinator: Sendable {
    let queue: DispatchQueue
    /// Every scan's index writes, in order (`IndexWriter`).
    let indexQueue: DispatchQueue
    let index: FileIndexStore?
    let log: @Sendable (String) -> Void
    /// Changes seen in SOURCE that the published tree may not show yet, and the trees published:
    /// what an open of a moved photo's file waits on (`LibraryFollowing`).
    public let pending = PendingChanges()
    let firstScan = Promise<Void>()
    let publisher: TreePublisher
    let scans: LibraryScans
    let follower: ChangeFollower

    public init(_ parts: CoordinatorParts) {
        let queue = DispatchQueue(label: "albumfs.library")
        let indexQueue = DispatchQueue(label: "albumfs.index-writer")
        let duplicates = parts.options.views.contains(LibraryViews.duplicates)
            ? DuplicateFinder(root: parts.scanner.root, store: parts.index as? ContentHashStore, log: parts.log) : nil
        var scanner = parts.scanner
        scanner.hashesWhileReading = duplicates?.whileReading
        publisher = TreePublisher(parts, scanner: scanner, pipeline: ScanPipeline(scanner: scanner, index: parts.index, confinedTo: queue), queue: queue,
                                  pending: pending, duplicates: duplicates)
        scans = LibraryScans(parts, publisher: publisher, queue: queue, indexQueue: indexQueue)
        follower = ChangeFollower(root: scanner.root, options: parts.options, queue: queue, pending: pending, scans: scans)
        self.queue = queue
        self.indexQueue = indexQueue
        index = parts.index
        log = parts.log
    }

    public var status: LibraryStatus {
        var s = publisher.statusBox.withLock { $0 }
        s.indexPending = scans.indexPending.count
        s.duplicateFilesHashed = publisher.duplicates?.filesHashed.load(ordering: .relaxed) ?? 0
        s.similarHashed = publisher.similar?.filesHashed.load(ordering: .relaxed) ?? 0
        s.similarPending = publisher.similar?.pending.load(ordering: .relaxed) ?? 0
        s.similarPlain = publisher.similar?.plain ?? PlainPictures()
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
    /// scan, then watching. `invalidate` reaches the kernel's caches; `afterFirstScan` runs on
    /// the coordinator's queue once the first scan's tree is shown.
    public func start(known: LibraryState?, invalidate: @escaping @Sendable (TreeChanges) -> Void,
                      afterFirstScan: @escaping @Sendable () -> Void = {}) {
        publisher.invalidate.withLock { $0 = invalidate }
        // A file found replaced or changed when opened is read again with its folder
        // (`LibraryCoordinator+Following`).
        publisher.fs.follow(self)
        queue.async { [self] in
            scans.state = known ?? knownOnceChecked()
            publisher.showing(fromSnapshot: known == nil)
            follower.startWatching(warn: log)
            follower.firstScan()
            firstScan.fulfil(())
            afterFirstScan()
            follower.schedulePeriodicRescan()
        }
    }

    /// What the index knows, behind a tree from a views snapshot: the index, opened without its
    /// check so that the mount could answer first (`LibraryIndex.damage`), is checked here. A
    /// damaged one is not read: this mount reads every file, and its snapshot is deleted, so the
    /// next mount checks the index before anything else and moves it aside for a new one.
    func knownOnceChecked() -> LibraryState {
        if let damage = index?.damage() {
            log("albumfs: warning: the index is damaged (\(damage)); every file is read again, and the next mount moves it aside")
            publisher.keeper?.discard()
            return LibraryState()
        }
        return ScanPipeline.known(from: index, scanner: scans.scanner) { [log] in log("albumfs: " + $0) }
    }

    /// Waits up to `seconds` for the first scan to finish; true if it did.
    public func waitForFirstScan(seconds: Double) -> Bool {
        firstScan.wait(seconds: seconds) != nil
    }

    /// Stops following the library. A first scan still reading writes the rows it holds (a long
    /// scan's progress is kept for the next mount), and every write handed in so far is waited for.
    public func stop() {
        follower.stop()
        publisher.similar?.stop(seconds: SimilarFinder.longestYield + 5)
        scans.scanWriter.withLock { $0 }?.stopHolding()
        indexQueue.sync {}
        publisher.saveViewsAtStop()
    }
}
