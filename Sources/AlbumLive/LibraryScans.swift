import AlbumCore
import AlbumMetadata
import AlbumSystem
import Dispatch
import FoundationEssentials

/// The mount's scans: each rescan runs the scan pipeline (`ScanPipeline`: survey, read, merge
/// into what is known) over its folders, the views published as batches land (`TreePublisher`,
/// when `PublishPacing` says so), then writes the index and says what changed. All on the
/// coordinator's queue, one rescan at a time; what asks for them is the `ChangeFollower`.
///
/// (`@unchecked Sendable`: the pipeline and what it knows are read and written only on `queue`,
/// through `state`, which checks it; the writer of the scan going on is a `Locked` value, which
/// the main thread reads at unmount.)
final class LibraryScans: @unchecked Sendable {
    /// A rescan asked for: its folders (outermost only; "" the library), and how they are walked.
    struct Request {
        var folders: [String]
        var first = false
        /// Nil: every folder is listed. Else folders whose times are unchanged since the last walk
        /// are taken as they were (`FolderTimes`), but these.
        var mustList: Set<String>?
        /// Paths the watcher named since the last rescan.
        var named: Set<String> = []
        /// Files known whole whatever their times (closed after writing).
        var complete: Set<String> = []
        /// Told of each folder a walk enters (nil: nothing watches).
        var watcher: FolderWatcher?

        /// Whether the rescan walks the whole library (its views then saved for the next mount).
        var isWhole: Bool { folders.contains("") }
    }

    /// What a rescan tells whoever asked for it.
    struct Outcome {
        let started: Date
        /// Files still being written: to look at again once they can have settled.
        let deferred: [String]
        /// What is left of the request's `complete`: files found whole and not known yet.
        let complete: Set<String>
    }

    let scanner: LibraryScanner
    let index: FileIndexStore?
    let options: CoordinatorOptions
    let log: @Sendable (String) -> Void
    let progress: (@Sendable (Int, Int, Bool) -> Void)?
    let queue: DispatchQueue
    let pipeline: ScanPipeline
    let publisher: TreePublisher
    /// Every scan's index writes, in order (`IndexWriter`), and the rows not written yet.
    let indexQueue: DispatchQueue
    let indexPending = PendingRows()
    /// The writer of the scan going on, told to write what it holds when the mount stops.
    let scanWriter = Locked<IndexWriter?>(nil)

    init(_ parts: CoordinatorParts, publisher: TreePublisher, queue: DispatchQueue, indexQueue: DispatchQueue) {
        scanner = publisher.scanner
        index = parts.index
        options = parts.options
        log = parts.log
        progress = parts.progress
        pipeline = publisher.pipeline
        self.publisher = publisher
        self.queue = queue
        self.indexQueue = indexQueue
    }

    /// Every file the scans know, with its photo's decisions (rules run only when a file changes,
    /// so a publish of 100,000 photos does not re-decide them all): the queue's alone.
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

    /// What a rescan sets up once for all the folders it walks.
    struct ScanSetup {
        let started = Date()
        let request: Request
        /// Files changed after this may still be being written (nil: take everything).
        let settledBefore: Timestamp?
        let writer: IndexWriter
        /// Whether the writer holds the rows until the views are published (a first scan).
        let holds: Bool
        /// What the scan asks of files new at their path (nil: a first mount knows nothing).
        let moveLookup: MoveLookup?
        var first: Bool { request.first }
    }

    /// A rescan's running totals, over the folders it walks.
    struct ScanTally {
        /// What the scan changed, over every folder it walked (its `gone`: the index rows to remove).
        var delta = ScanDelta()
        var deferred: [String] = []
        var reads = 0
        /// Files taken from `state` at new paths, whose index rows are copied once the views
        /// show them: the copying of a big folder's rows takes a core for seconds, which the walk
        /// and the views need first.
        var heldMoves: [FileMove] = []
        var foldersListed = 0
        var foldersUnchanged = 0
        /// Files known whole and not found yet (the request's `complete`, less those found).
        var complete: Set<String>
    }

    /// Rescans the request's folders (recursively) through the pipeline; then the views are
    /// published and the index written.
    func rescan(_ request: Request) -> Outcome {
        let setup = beginScan(request)
        let folderProblemsBefore = publisher.onQueue.folderProblems
        var tally = ScanTally(complete: request.complete)
        publisher.onQueue.renamed = []
        defer { publisher.onQueue.renamed = [] }
        for folder in request.folders {
            note(scan(folder, setup, complete: tally.complete), of: folder, into: &tally)
        }
        finishScan(setup, tally, changedProblems: publisher.onQueue.folderProblems != folderProblemsBefore)
        return Outcome(started: setup.started, deferred: tally.deferred, complete: tally.complete)
    }

    /// The status says a scan runs; the settle edge, the index writer and the lookup of files
    /// known elsewhere are made.
    func beginScan(_ request: Request) -> ScanSetup {
        publisher.statusBox.withLock { $0.state = request.first ? "scanning" : "rescanning" }
        // Live changes wait until a file has settled (never half-read); the first scan takes
        // everything, since a file still being written then will change again and be re-read.
        let settleEdge = Date().timeIntervalSince1970 - options.settle
        let settled = request.first ? nil : Timestamp(seconds: Int64(settleEdge.rounded(.down)),
                                                      nanoseconds: Int((settleEdge - settleEdge.rounded(.down)) * 1e9))
        // The index is written on its own serial queue, in order, while reading and merging go on;
        // a first scan's rows wait until its views are published, within bounds (`Holding`).
        let holds = state.isEmpty && index != nil
        let writer = IndexWriter(index: index, log: log, queue: indexQueue, pending: indexPending,
                                 holding: holds ? .firstScan : nil)
        scanWriter.withLock { $0 = writer }
        return ScanSetup(request: request, settledBefore: settled, writer: writer, holds: holds,
                         moveLookup: pipeline.moveLookup(saving: writer))
    }

    /// When a scan shows what it found so far: at most every max(1 s, 4 publish times, twice the
    /// time from the scan's start to the last publish). The gaps grow with the scan (publishes
    /// 1, 3, 9, 27 s after its start), so the trees a long scan shows while it reads, each built
    /// of every photo found so far, cost about half what its last one costs, and a short scan
    /// still shows photos within a second or two.
    struct PublishPacing {
        let started: Date
        var last: Date

        init(started: Date, now: Date = Date()) {
            self.started = started
            last = now
        }

        func isDue(at now: Date, publishSeconds: Double) -> Bool {
            now.timeIntervalSince(last) > max(1, 4 * publishSeconds, 2 * last.timeIntervalSince(started))
        }
    }

    /// Scans `folder` through the pipeline, the status counting the reads, folders filling in
    /// the views as batches merge (`PublishPacing`): the walk runs on its own thread, and this
    /// loop merges each batch it hands on and shows what is merged when the pacing says so.
    func scan(_ folder: String, _ setup: ScanSetup, complete: Set<String>) -> ScanPipeline.FolderScan {
        publisher.statusBox.withLock { $0.progressTotal = 0; $0.progressDone = 0 }
        var pacing = PublishPacing(started: setup.started)
        let run = pipeline.start(request(folder, setup, complete: complete))
        while let batch = run.next() {
            publisher.statusBox.withLock { $0.progressTotal = max($0.progressTotal, batch.files) }
            publisher.duplicates?.keepHashesMadeWhileReading()
            // A tree build just before the scan's own last one would only delay it.
            guard batch.merged < batch.batches, !batch.finishingSoon,
                  pacing.isDue(at: Date(), publishSeconds: publisher.onQueue.publishSeconds) else { continue }
            publisher.publish(complete: false)
            pacing.last = Date()
        }
        let found = run.finish()
        let reads = found.survey.toRead.count
        publisher.statusBox.withLock { $0.progressTotal = reads }
        if reads > 0 { progress?(reads, reads, true) }
        return found
    }

    /// What the scan of `folder` asks of the pipeline.
    func request(_ folder: String, _ setup: ScanSetup, complete: Set<String>) -> ScanRequest {
        var request = ScanRequest(folder: folder, writer: setup.writer, moveLookup: setup.moveLookup)
        request.settledBefore = setup.settledBefore
        request.complete = complete
        // The folder a disk left when it was unmounted is listed fine, and empty: what it
        // held is unknown, not gone, as for a folder that cannot be listed at all.
        request.unavailable = folder.isEmpty ? publisher.onQueue.availability.diskNotMounted() : nil
        request.skippingUnchanged = setup.request.mustList != nil
        request.mustList = setup.request.mustList ?? []
        request.named = setup.request.named
        request.onFolder = { [watcher = setup.request.watcher] in watcher?.watch($0) }
        request.progress = { [publisher, progress] done, total in
            // The stream's own total: the batches merged lag behind those read.
            publisher.statusBox.withLock { $0.progressDone = done; $0.progressTotal = max($0.progressTotal, total) }
            progress?(done, total, false)
        }
        return request
    }

    /// Takes in what a folder's scan found: its changes into the tally, the whole files it found,
    /// the rest to the publisher (moves for the views' inode numbers, problems, availability).
    func note(_ found: ScanPipeline.FolderScan, of folder: String, into tally: inout ScanTally) {
        let survey = found.survey
        tally.delta.added += found.delta.added
        tally.delta.changed += found.delta.changed
        tally.delta.moved += found.delta.moved
        tally.delta.gone += found.delta.gone
        tally.reads += survey.toRead.count
        tally.heldMoves += found.heldMoves
        tally.deferred += survey.deferred
        tally.foldersListed += pipeline.folderTimes.listedCount
        tally.foldersUnchanged += pipeline.folderTimes.takenCount
        if !tally.complete.isEmpty {
            // Every file the scan found below the folder is known now, but those still being
            // written: the few whole files named are looked up, not the folder's every file.
            let waiting = Set(survey.deferred)
            tally.complete = tally.complete.filter { !($0.isWithin(folder: folder) && state.knows($0) && !waiting.contains($0)) }
        }
        publisher.note(found, of: folder)
    }
}
