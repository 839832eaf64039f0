import AlbumCore
import AlbumSystem
import AlbumMetadata
import AlbumVFS
import Dispatch
import FoundationEssentials
import Glibc
import Synchronization

/// Keeps the mounted tree in step with the library: publishes what the index knows at once,
/// verifies it with a scan in the background (reading only changed files), then follows changes
/// through inotify (bursts debounced) and a periodic rescan as a safety net.
///
/// All library state is confined to one serial queue; `status` is readable from any thread.
/// (`@unchecked Sendable`: the library state is read and written only on `queue`, a serial
/// queue; what other threads read is in `Mutex`es: the status, the invalidation callback, the
/// scan's writer.)
public final class LibraryCoordinator: @unchecked Sendable {
    public struct Options: Sendable {
        public var thumbnailBoxes: [ThumbnailBox]
        /// Seconds between full rescans (the safety net under inotify).
        public var rescanInterval: Double
        /// Quiet time that ends a burst of changes.
        public var debounce: Double = 0.25
        /// A file is taken once it was closed after writing (IN_CLOSE_WRITE) with no write since,
        /// or else once its mtime and ctime are this many seconds old.
        public var settle: Double = 1.0
        public var maxWatches: Int?
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
        /// Images in a format not shown (HEIF without `-o heif=on`).
        public var imagesNotShown = 0
        public var problems: [ScanProblem] = []
        /// Headers read since the mount (zero on a remount of an unchanged library).
        public var headerReads = 0
        public var progressDone = 0
        public var progressTotal = 0
        public var lastScanSeconds = 0.0
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
        public init() {}
    }

    private let scanner: LibraryScanner
    private let index: FileIndexStore?
    private let fs: AlbumFileSystem
    private let options: Options
    private let queue = DispatchQueue(label: "albumfs.library")
    private let log: @Sendable (String) -> Void
    private let progress: (@Sendable (Int, Int, Bool) -> Void)?
    private let invalidate: Mutex<(@Sendable (TreeChanges) -> Void)?> = Mutex(nil)
    private let statusBox = Mutex(Status())
    private let firstScan = DispatchSemaphore(value: 0)
    /// Every scan's index writes, in order (`IndexWriter`), and the rows not written yet.
    private let indexQueue = DispatchQueue(label: "albumfs.index-writer")
    private let indexPending = PendingRows()
    /// The writer of the scan going on, told to write what it holds when the mount stops.
    private let scanWriter = Mutex<IndexWriter?>(nil)
    private var watcher: FolderWatcher?

    // Queue-confined: every file, and for photos the decisions made (rules run only when a file
    // changes, so a publish of 100,000 photos does not re-decide them all).
    private var state = LibraryState()
    /// The problems of folders (one that cannot be listed, a name that is not UTF-8) found by the
    /// walks so far: each rescan of a folder replaces those below it.
    private var folderProblems: [ScanProblem] = []
    /// How long the last publish took: publishing during a long scan waits a multiple of it.
    private var publishSeconds = 0.0
    private var dirty = Set<String>()
    /// Files this rescan found under new paths (their folder renamed or moved): every tree it
    /// publishes gives their photos their old paths' inode numbers.
    private var renamed: [FileMove] = []
    /// Files whose last event says they are whole (closed after writing, or renamed into place):
    /// no need to wait for them to settle.
    private var wholeFiles = Set<String>()
    private var flushScheduled = false
    /// The number of the last change put in `dirty` (`fs.pendingChanges` counts them as reported).
    private var absorbedChange = 0
    private var burstStart: Date?
    private var availability: LibraryAvailability

    /// - Parameters:
    ///   - progress: `(done, total, finished)` while headers are read, for a terminal progress line.
    public init(scanner: LibraryScanner, index: FileIndexStore?, fs: AlbumFileSystem, options: Options,
                progress: (@Sendable (Int, Int, Bool) -> Void)? = nil, log: @escaping @Sendable (String) -> Void) {
        self.scanner = scanner
        self.index = index
        self.fs = fs
        self.options = options
        self.progress = progress
        self.log = log
        availability = LibraryAvailability(root: scanner.root, index: index, log: log)
    }

    public var status: Status {
        var s = statusBox.withLock { $0 }
        s.indexPending = indexPending.count
        return s
    }

    /// Builds the first tree from the index alone (no file is touched): what the mount shows
    /// before the background scan has looked at anything. Rows are decided as they are read, so
    /// the evidence of 100,000 files is never in memory at once.
    public static func libraryFromIndex(_ index: FileIndexStore?, scanner: LibraryScanner, boxes: [ThumbnailBox],
                                        log: (String) -> Void) -> (Library, LibraryState) {
        var state = LibraryState()
        if let index {
            // (A photo's row from before its owner and mode were kept is read again, once.)
            do { try index.forEach { if !$0.lacksAccess { state.put($0, scanner: scanner) } } } catch {
                log("albumfs: warning: the index cannot be read (\(error)); scanning everything")
                state = LibraryState()
            }
        }
        return (LibraryViews.build(photos: state.photos, thumbnailBoxes: boxes, withStatus: true, withPicks: true,
                                   emptyMtime: Timestamp.now), state)
    }

    /// Takes what the index knew (`libraryFromIndex`), starts the background scan, then
    /// watching. `invalidate` reaches the kernel's caches.
    public func start(known: LibraryState, invalidate: @escaping @Sendable (TreeChanges) -> Void) {
        self.invalidate.withLock { $0 = invalidate }
        // A file found replaced or changed when opened is read again with its folder.
        let root = scanner.root
        fs.onStaleFile { [weak self] path in
            let folder = path.folderBeforeLastSlash
            self?.changed(folder.isEmpty ? root : root + "/" + folder, [])
        }
        queue.async { [self] in
            state = known
            watcher = FolderWatcher(maxWatches: options.maxWatches, onChange: { [weak self] path, entries in self?.changed(path, entries) },
                                    onMountsChanged: { [weak self] in self?.mountsChanged() }, warn: log)
            watcher?.start()
            fullScan(first: true)
            firstScan.signal()
            schedulePeriodicRescan()
        }
    }

    /// Waits up to `seconds` for the first scan to finish; true if it did.
    public func waitForFirstScan(seconds: Double) -> Bool {
        let done = firstScan.wait(timeout: .now() + seconds) == .success
        if done { firstScan.signal() }
        return done
    }

    /// Stops following the library. A first scan still reading writes the rows it holds (a long
    /// scan's progress is kept for the next mount), and every write handed in so far is waited for.
    public func stop() {
        watcher?.stop()
        scanWriter.withLock { $0 }?.stopHolding()
        indexQueue.sync {}
    }

    // MARK: Scanning (on `queue`)

    private func fullScan(first: Bool) {
        rescan(["" as String], first: first)
    }

    /// What a rescan sets up once for all the folders it walks.
    private struct ScanSetup {
        let started = Date()
        let first: Bool
        /// Files changed after this may still be being written (nil: take everything).
        let settledBefore: Timestamp?
        let writer: IndexWriter
        /// Whether the writer holds the rows until the views are published (a first scan).
        let holds: Bool
        /// What the scan asks of files new at their path (nil: a first mount knows nothing).
        let elsewhere: LibraryScanner.Elsewhere?
    }

    /// A rescan's running totals, over the folders it walks.
    private struct ScanTally {
        var removals: [String] = []
        var deferred: [String] = []
        var reads = 0
        var moved = 0
        /// Files taken from `state` at new paths, whose index rows are copied once the views
        /// show them: the copying of a big folder's rows takes a core for seconds, which the walk
        /// and the views need first.
        var heldMoves: [FileMove] = []
    }

    /// Rescans folders (recursively): each is surveyed and read, then merged into `state`; then
    /// the views are published and the index written.
    private func rescan(_ folders: [String], first: Bool = false) {
        let setup = beginScan(first: first)
        let folderProblemsBefore = folderProblems
        var tally = ScanTally()
        renamed = []
        defer { renamed = [] }
        for folder in folders {
            let (survey, readPaths, trackReads) = surveyAndRead(folder, setup, heldMoves: &tally.heldMoves)
            merge(survey, of: folder, readPaths: readPaths, trackReads: trackReads, into: &tally)
        }
        finishScan(setup, tally, changedProblems: folderProblems != folderProblemsBefore)
    }

    /// The status says a scan runs; the settle edge, the index writer and the lookup of files
    /// known elsewhere are made.
    private func beginScan(first: Bool) -> ScanSetup {
        statusBox.withLock { $0.state = first ? "scanning" : "rescanning" }
        // Live changes wait until a file has settled (never half-read); the first scan takes
        // everything, since a file still being written then will change again and be re-read.
        let settleEdge = Date().timeIntervalSince1970 - options.settle
        let settled = first ? nil : Timestamp(seconds: Int64(settleEdge.rounded(.down)),
                                              nanoseconds: Int((settleEdge - settleEdge.rounded(.down)) * 1e9))
        // The index is written on its own serial queue, in order, while reading and merging go on;
        // a first scan's rows wait until its views are published, within bounds (`Holding`).
        let holds = state.isEmpty && index != nil
        let writer = IndexWriter(index: index, log: log, queue: indexQueue, pending: indexPending,
                                 holding: holds ? .firstScan : nil)
        scanWriter.withLock { $0 = writer }
        // A file new at its path may be one the index knows at another (its folder renamed, moved
        // or renamed): its row then stands for it, saved under the new path, and it is not read.
        // (A first mount knows nothing. A mount without an index still knows what it holds.)
        let elsewhere = state.isEmpty ? nil : index.map { LibraryScanner.Elsewhere(index: $0, found: writer.save) }
            ?? LibraryScanner.Elsewhere(lookup: { files in files.map { _ in nil } }, found: { _ in })
        return ScanSetup(first: first, settledBefore: settled, writer: writer, holds: holds, elsewhere: elsewhere)
    }

    /// Walks `folder` and reads what changed: reading starts as soon as the walk has found a batch
    /// of files (`readBatch`) and goes on as one stream on the reader threads; each batch's
    /// evidence goes to the index as soon as it is read, and the batch keeps slim records, merged
    /// in order whenever the walk hands off more (so read batches never pile up) and at the end.
    /// Returns the survey, the paths read, and whether they were tracked (nothing known before
    /// the scan, a first mount: nothing can have vanished, and the paths need no tracking).
    private func surveyAndRead(_ folder: String, _ setup: ScanSetup,
                               heldMoves: inout [FileMove]) -> (LibraryScanner.Survey, Set<String>, Bool) {
        // Files this mount holds, found at other paths, are taken from `state` first (the paths
        // by inode made when first asked, once per walk: `state` changes between walks).
        var pathsByInode: [UInt64: String]?
        var taken: [FileMove] = []
        var elsewhere = setup.elsewhere
        elsewhere?.held = LibraryScanner.Held(file: { [unowned self] identity in
            if pathsByInode == nil { pathsByInode = state.pathsByInode() }
            guard let path = pathsByInode?[identity.inode], let (file, photo) = state.held(at: path) else { return nil }
            return (path, file, photo)
        }, moved: { taken += $0 }, worthFrom: index == nil ? 1 : Self.heldWorthFrom)
        var merge = MergeQueue(trackReads: !state.isEmpty)
        statusBox.withLock { $0.progressTotal = 0; $0.progressDone = 0 }
        // The folder a disk left when it was unmounted is listed fine, and empty: what it
        // held is unknown, not gone, as for a folder that cannot be listed at all.
        let unavailable = folder.isEmpty ? availability.diskNotMounted() : nil
        let survey = unavailable.map(LibraryScanner.Survey.unavailable) ?? scanner.surveyReading(
            under: folder, previous: state, settledBefore: setup.settledBefore, complete: wholeFiles, elsewhere: elsewhere,
            onFolder: { [watcher] in watcher?.watch($0) },
            onRead: { [writer = setup.writer] read in
                writer.save(read.lazy.map(\.file))
                for i in read.indices { read[i].file.slim() }
            },
            progress: { [self] done, total in
                statusBox.withLock { $0.progressDone = done }
                progress?(done, total, false)
            },
            handedOff: { [self] batch in
                merge.batches.append(batch)
                statusBox.withLock { $0.progressTotal = merge.handedOff }
                mergeBatches(&merge, walkDone: false)
            })
        if !wholeFiles.isEmpty {
            for path in survey.reused.map(\.relativePath) + survey.moved.map(\.file.relativePath) where wholeFiles.contains(path) {
                wholeFiles.remove(path)
            }
        }
        statusBox.withLock { $0.progressTotal = survey.toRead.count }
        mergeBatches(&merge, walkDone: true)
        if survey.toRead.count > 0 { progress?(survey.toRead.count, survey.toRead.count, true) }
        heldMoves += taken
        return (survey, merge.readPaths, merge.trackReads)
    }

    /// Merges a folder's survey into `state`: files moved in, files gone, the folder's problems.
    private func merge(_ survey: LibraryScanner.Survey, of folder: String, readPaths: Set<String>, trackReads: Bool,
                       into tally: inout ScanTally) {
        tally.moved += survey.moved.count
        tally.reads += survey.toRead.count
        // Files found by their identity under a new path whose old path in this folder the walk
        // found nothing at (a folder renamed) take their old entries' place; the others are
        // put below, once the files gone are dropped.
        var movedInPlace = movedAway(survey, in: folder, readPaths: readPaths)
        for i in movedInPlace.indices where movedInPlace[i] {
            movedInPlace[i] = state.move(from: survey.moved[i].from, survey.moved[i].file, photo: survey.moved[i].photo)
            if movedInPlace[i] { tally.removals.append(survey.moved[i].from) }
        }
        // Everything below the folder is replaced by what the scan found, except files still
        // being written, which keep their last settled version until they settle.
        let deferredKnown = survey.deferred.filter { state.knows($0) }.count
        let movedHereNew = survey.moved.indices.count { !movedInPlace[$0] && !state.knows(survey.moved[$0].file.relativePath) }
        let nothingGone = !trackReads
            || (folder.isEmpty && state.fileCount + movedHereNew == survey.reused.count + survey.moved.count + survey.toRead.count + deferredKnown)
        if !nothingGone {
            let kept = Set(survey.reused.lazy.map(\.relativePath) + survey.moved.lazy.map(\.file.relativePath) + survey.deferred)
                .union(readPaths)
            // (Files below a folder that could not be listed are not gone: unknown.)
            let gone = state.paths.filter { path in
                path.isWithin(folder: folder) && !kept.contains(path) && !survey.unlisted.contains { path.isWithin(folder: $0) }
            }
            for path in gone { state.drop(path) }
            tally.removals += gone
        }
        // Files found by their identity were not read (decided, and saved, by the survey).
        // Taken after the files gone are dropped, so a renamed folder's photos take their old
        // paths' room (taken before, they would make the map of files and the photo array grow
        // to twice the library's size for good, and the rescan's peak with them).
        for (i, found) in survey.moved.enumerated() where !movedInPlace[i] { state.put(found.file, photo: found.photo) }
        renamed += survey.moved.map(\.move)
        tally.deferred += survey.deferred
        folderProblems.removeAll { $0.relativePath.isWithin(folder: folder) }
        folderProblems += survey.folderProblems
        if folder.isEmpty { noteAvailability(listed: !survey.unlisted.contains("")) }
    }

    /// Publishes what the scan found, writes the index, says the scan is done, and looks again
    /// later at files still being written.
    private func finishScan(_ setup: ScanSetup, _ tally: ScanTally, changedProblems: Bool) {
        // The views do not need the index: build them while the writer catches up. A rescan that
        // changed nothing (a remount's check of an unchanged library, most periodic rescans)
        // leaves the tree as it is: rebuilding a big library's views takes both cores a while.
        // (On a remount, the tree built from the index is this very tree.)
        let report: ScanReport
        let unchanged = tally.reads == 0 && tally.moved == 0 && tally.removals.isEmpty && !changedProblems
        if unchanged {
            report = state.report(folderProblems: folderProblems)
            show(report)
        } else {
            report = publish()
        }
        writeIndex(setup, tally)
        let seconds = Date().timeIntervalSince(setup.started)
        statusBox.withLock { s in
            s.state = "done"
            s.headerReads += tally.reads
            s.lastScanSeconds = seconds
            s.scans += 1
            s.watchedFolders = watcher?.watchCount ?? 0
            s.watchLimitReached = watcher?.isAtLimit ?? false
        }
        // A scan leaves large transient arrays (survey, results, the previous tree); hand the freed
        // heap back to the system so RSS reflects what the mount holds.
        HeapTuning.trim()
        if setup.first {
            // (Said here, where a user looks, when an iPhone library seems to have lost its photos.)
            let notShown = state.notShownCount
            let hint = notShown == 0 ? "" : "; \(notShown) HEIC/HEIF image\(notShown == 1 ? "" : "s") not shown (-o heif=on shows \(notShown == 1 ? "it" : "them"))"
            log("albumfs: scan done: \(report.photos.count) photos, \(state.fileCount) files, \(tally.reads) read, in \(seconds.fixed(2)) s ("
                + (unchanged ? "nothing changed: the tree stays" : "last tree build \(publishSeconds.fixed(2)) s") + ")" + hint)
        }
        lookAgainLater(at: tally.deferred)
    }

    /// The scan's last index writes: the rows of files taken at new paths, the removals, and the
    /// rows a first scan held (written after its views, the heap trimmed after them).
    private func writeIndex(_ setup: ScanSetup, _ tally: ScanTally) {
        setup.writer.save(moves: tally.heldMoves)
        scanWriter.withLock { $0 = nil }
        if setup.holds {
            setup.writer.finishLater(removing: tally.removals) { [self] outcome in
                statusBox.withLock { $0.indexWriteFailure = outcome.failure(after: $0.indexWriteFailure) }
                // (The evidence held for the index is freed only now.)
                HeapTuning.trim()
            }
        } else {
            let outcome = setup.writer.finish(removing: tally.removals)
            statusBox.withLock { $0.indexWriteFailure = outcome.failure(after: $0.indexWriteFailure) }
        }
    }

    /// Files still being written: look again once they can have settled (a change still pending
    /// until then, as `changes_pending` says).
    private func lookAgainLater(at deferred: [String]) {
        guard !deferred.isEmpty else { return }
        absorbedChange = max(absorbedChange, fs.pendingChanges.report())
        let folders = Set(deferred.map { $0.folderBeforeLastSlash })
        queue.asyncAfter(deadline: .now() + options.settle + 0.1) { [self] in
            for f in folders { dirty.insert(f) }
            flush()
        }
    }

    /// Whether the scan of the whole library could list its folder (`.` in the folder problems
    /// says why not), for the status and the one line logged when that changes.
    private func noteAvailability(listed: Bool) {
        availability.note(listed: listed, why: folderProblems.first { $0.relativePath == "." }?.message ?? "cannot list folder")
    }

    /// One folder scan's read batches, merged in order.
    private struct MergeQueue {
        /// Whether to collect the paths read (to tell which known files are gone).
        let trackReads: Bool
        var batches: [ReadStream.Batch] = []
        var merged = 0
        /// Files handed to the readers so far.
        var handedOff: Int { batches.reduce(0) { $0 + $1.count } }
        /// Files handed to the readers and not merged yet.
        var unmerged: Int { batches[merged...].reduce(0) { $0 + $1.count } }
        var readPaths = Set<String>()
        var lastPublish = Date()
        let started = Date()
        init(trackReads: Bool) { self.trackReads = trackReads }
    }

    /// Files new at their path, asked of the index together, from which they are first looked for
    /// in `state` (`LibraryScanner.Held.worthFrom`): a batch of the walk is 256
    /// (`LibraryScanner.lookupBatch`), a folder of a few dozen renamed goes to the index.
    static let heldWorthFrom = 64

    /// Which files of `survey.moved` have their old path gone: inside `folder`, in a folder it
    /// listed, and the walk found nothing there (no file reused, read or waiting to settle).
    /// (`LibraryState.move` then checks the state holds that very file there.)
    private func movedAway(_ survey: LibraryScanner.Survey, in folder: String, readPaths: Set<String>) -> [Bool] {
        // The paths walked and the old paths, when both are many (a whole library's folder renamed
        // walks none of its old paths): checked against a set of the old paths.
        var stillThere = Set<String>()
        if !survey.moved.isEmpty && !(survey.reused.isEmpty && survey.deferred.isEmpty && readPaths.isEmpty) {
            let from = Set(survey.moved.map(\.from))
            stillThere = Set(survey.reused.lazy.map(\.relativePath).filter(from.contains) + survey.deferred.filter(from.contains)
                             + readPaths.filter(from.contains))
        }
        return survey.moved.map(\.from).map { old in
            !stillThere.contains(old) && old.isWithin(folder: folder) && !survey.unlisted.contains(where: { old.isWithin(folder: $0) })
        }
    }

    /// Merges read batches (already saved to the index, slimmed of their evidence) in order: while
    /// the walk goes on, those read already; once it is done, every one, waiting for each. Folders
    /// fill in as batches land (a publish at most every max(1 s, 4 publish times)).
    private func mergeBatches(_ q: inout MergeQueue, walkDone: Bool) {
        if walkDone {
            state.reserve(more: q.unmerged)
        } else {
            state.expect(atLeast: state.fileCount + q.unmerged)
        }
        while q.merged < q.batches.count, walkDone || q.batches[q.merged].isComplete {
            for read in q.batches[q.merged].take() {
                state.put(read.file, photo: read.photo)
                if q.trackReads { q.readPaths.insert(read.file.relativePath) }
                if !wholeFiles.isEmpty { wholeFiles.remove(read.file.relativePath) }
            }
            q.merged += 1
            // A tree build just before the scan's own last one would only delay it.
            let perBatch = Date().timeIntervalSince(q.started) / Double(q.merged)
            let finishingSoon = walkDone && perBatch * Double(q.batches.count - q.merged) < 1
            if q.merged < q.batches.count && !finishingSoon && Date().timeIntervalSince(q.lastPublish) > max(1, 4 * publishSeconds) {
                publish(complete: false)
                q.lastPublish = Date()
            }
        }
    }

    /// Rebuilds the views from the current photos and swaps them into the filesystem; `complete`
    /// false while the scan is still reading.
    @discardableResult
    private func publish(complete: Bool = true) -> ScanReport {
        let started = Date()
        let report = state.report(folderProblems: folderProblems)
        let library = LibraryViews.build(photos: report.photos, thumbnailBoxes: options.thumbnailBoxes, withStatus: true,
                                         withPicks: true, emptyMtime: Timestamp.now)
        // (A file found under a new path while its old one is still there, a hard link, is another
        // entry: its photo gets numbers of its own. A rename given again is a no-op.)
        let changes = fs.update(library, complete: complete, renamed: renamed.filter { !state.knows($0.from) })
        if !changes.isEmpty, let invalidate = invalidate.withLock({ $0 }) { invalidate(changes) }
        show(report)
        publishSeconds = Date().timeIntervalSince(started)
        return report
    }

    /// The counts and problems `.albumfs/status` and `.albumfs/errors` show, and whether the
    /// library is available, to the status and to the filesystem (whose reads of an unavailable
    /// library answer EIO): set together, so a reader that sees `unavailable` sees why too.
    private func show(_ report: ScanReport) {
        fs.setLibraryAvailable(availability.isAvailable)
        statusBox.withLock { s in
            s.photos = report.photos.count
            s.filesSeen = report.filesSeen
            s.imagesNotShown = state.notShownCount
            s.problems = report.problems
            s.libraryAvailable = availability.isAvailable
        }
    }

    // MARK: Changes

    /// Called by the watcher (any thread) with the absolute path of a folder that changed.
    private func changed(_ absolutePath: String, _ entries: [(name: String, complete: Bool)]) {
        let root = scanner.root
        let relative = absolutePath == root ? "" : absolutePath.hasPrefix(root + "/") ? String(absolutePath.dropFirst(root.count + 1)) : ""
        // Counted at once: an `open` of a photo whose file moved waits for the tree that shows it.
        let change = fs.pendingChanges.report()
        queue.async { [self] in
            absorbedChange = max(absorbedChange, change)
            for entry in entries {
                let path = relative.isEmpty ? entry.name : relative + "/" + entry.name
                if entry.complete { wholeFiles.insert(path) } else { wholeFiles.remove(path) }
            }
            dirty.insert(relative)
            if burstStart == nil { burstStart = Date() }
            guard !flushScheduled else { return }
            flushScheduled = true
            queue.asyncAfter(deadline: .now() + options.debounce) { [self] in
                flushScheduled = false
                flush()
            }
        }
    }

    /// A disk was mounted or unmounted somewhere: an unavailable library may be back (inotify
    /// cannot tell: the folder under a new mount is untouched). An available one is left alone;
    /// its own disk going away shows through inotify (IN_UNMOUNT).
    private func mountsChanged() {
        queue.async { [self] in
            guard !availability.isAvailable else { return }
            changed(scanner.root, [])
        }
    }

    /// Rescans the dirty folders, outermost only (a folder inside another dirty one is covered).
    private func flush() {
        guard !dirty.isEmpty else { return }
        let folders = dirty.sorted()
        var outermost: [String] = []
        for f in folders where !outermost.contains(where: { f.isWithin(folder: $0) }) {
            outermost.append(f)
        }
        dirty.removeAll()
        burstStart = nil
        let covered = absorbedChange
        rescan(outermost)
        fs.pendingChanges.shown(through: covered)
    }

    private func schedulePeriodicRescan() {
        queue.asyncAfter(deadline: .now() + options.rescanInterval) { [self] in
            dirty.insert("")
            flush()
            schedulePeriodicRescan()
        }
    }
}
