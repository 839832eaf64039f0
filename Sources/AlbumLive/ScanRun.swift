import AlbumCore
import AlbumMetadata
import AlbumSystem
import FoundationEssentials

/// One folder's scan under way (`ScanPipeline.start`), the consumer of its walk
/// (`ConcurrentWalk`): `next` takes the read batches the walk hands on and merges them into the
/// pipeline's `known`, one at a time in the walk's order; `finish` merges the survey (files moved,
/// files gone) and says what changed. Both on the pipeline's one thread, which shows what is
/// merged when it sees fit between two `next`: nothing is shown or told from the walk.
public final class ScanRun {
    /// Where the merging of a folder's batches is, after one more batch merged (`next`).
    public struct Batch {
        public var merged: Int
        /// Batches the walk handed on so far.
        public var batches: Int
        /// Files the walk handed to the readers so far.
        public var files: Int
        public var walkDone: Bool
        /// Seconds a batch took so far, on average.
        public var perBatch: Double
        /// Whether the folder's last merge is about a second away or less.
        public var finishingSoon: Bool { walkDone && perBatch * Double(batches - merged) < 1 }
    }

    private let pipeline: ScanPipeline
    private let folder: String
    private let named: Set<String>
    /// Nil when the folder cannot be scanned now (`ScanRequest.unavailable`).
    private let walk: ConcurrentWalk?
    private var ended: ConcurrentWalk.Ended?
    private var queue: MergeQueue

    init(pipeline: ScanPipeline, request: ScanRequest) {
        self.pipeline = pipeline
        folder = request.folder
        named = request.named
        // (Nothing known when the walk begins: every path it reads is new, and none needs asking.)
        queue = MergeQueue(trackReads: !pipeline.known.isEmpty)
        if let why = request.unavailable {
            walk = nil
            ended = ConcurrentWalk.Ended(survey: .unavailable(why), heldMoves: [])
        } else {
            walk = ConcurrentWalk(capacity: request.batchesAhead, Self.walking(request, pipeline: pipeline, known: KnownSnapshot(pipeline.known)))
        }
    }

    /// The walk of `request`, asking `known` (what was known when it began) and handing the
    /// batches it starts to `handOff`; each batch's rows saved as soon as it is read, then slimmed.
    private static func walking(_ request: ScanRequest, pipeline: ScanPipeline, known: KnownSnapshot) -> ConcurrentWalk.Body {
        let scanner = pipeline.scanner
        // (Taken out: the walk's copy alone, so noting a folder copies nothing; back in `finish`.)
        let folders = FolderWalk(times: pipeline.folderTimes, skipping: request.skippingUnchanged, mustList: request.mustList)
        pipeline.folderTimes = FolderTimes(racyMargin: folders.times.racyMargin)
        let minimumBatch = pipeline.index == nil ? 1 : ScanPipeline.knownMovesMinimumBatch
        let onRead: @Sendable (inout [ReadStream.Read]) -> Void = { [writer = request.writer] read in
            // (A closure, not the key path `\.file`: that was read through the runtime a file.)
            writer.save(read.lazy.map { $0.file })
            for i in read.indices { read[i].file.slim() }
        }
        return { handOff in
            var heldMoves: [FileMove] = []
            var survey = LibraryScanner.SurveyRequest()
            survey.folder = request.folder
            survey.settledBefore = request.settledBefore
            survey.complete = request.complete
            survey.moves = request.moveLookup
            survey.held = request.moveLookup == nil ? nil : known.moves(minimumBatch: minimumBatch) { heldMoves += $0 }
            survey.folders = folders
            survey.onFolder = request.onFolder
            let found = scanner.surveyAndRead(survey, previous: known, onRead: onRead, progress: request.progress, handedOff: handOff)
            return ConcurrentWalk.Ended(survey: found, heldMoves: heldMoves)
        }
    }

    /// Merges the next batch the walk hands on, waiting for the walk and the readers; nil once
    /// every batch is merged. A rescan merges as a first scan does, while its walk goes on: the
    /// walk asks a snapshot, a value that shares the state's storage until the first merge copies
    /// the state (once a scan: from then on the state is the merges' alone).
    public func next() -> Batch? {
        guard let walk else { return nil }
        take(from: walk)
        guard queue.merged < queue.batches.count else { return nil }
        if ended == nil {
            // (A rescan's map holds the library already: grown four-fold ahead, its room would
            // stay unfilled by the few files a rescan adds.)
            if !queue.trackReads { pipeline.known.expect(atLeast: pipeline.known.fileCount + queue.unmerged) }
        } else if !queue.reserved {
            pipeline.known.reserve(more: queue.unmerged)
            queue.reserved = true
        }
        return mergeNext(walk)
    }

    /// Takes what the walk handed on: the next batch when every one taken is merged (so at most
    /// the walk's `capacity` batches wait, in its queue); every one once the walk has ended (room
    /// made for them at once).
    private func take(from walk: ConcurrentWalk) {
        while ended == nil {
            guard queue.merged == queue.batches.count || walk.counts.ended else { return }
            guard let batch = walk.next() else {
                ended = walk.end()
                return
            }
            queue.batches.append(batch)
        }
    }

    private func mergeNext(_ walk: ConcurrentWalk) -> Batch {
        merge(queue.batches[queue.merged].take(), into: &pipeline.known)
        queue.merged += 1
        let counts = walk.counts
        return Batch(merged: queue.merged, batches: counts.batches, files: counts.files, walkDone: counts.ended,
                     perBatch: Date().timeIntervalSince(queue.started) / Double(queue.merged))
    }

    /// Puts a batch's files in `known` (the pipeline's, reached once a batch).
    private func merge(_ reads: [ReadStream.Read], into known: inout LibraryState) {
        for read in reads {
            // (A walk lists each path once: with nothing known before it, every path read is new.)
            let path = read.file.relativePath
            if queue.trackReads && known.knows(path) { queue.changed.append(path) } else { queue.added.append(path) }
            known.put(read.file, photo: read.photo)
        }
    }

    /// Merges what is left of the read batches, then the survey; what the folder's scan found
    /// and changed.
    public func finish() -> ScanPipeline.FolderScan {
        while next() != nil {}
        let found = ended ?? walk.unsafelyUnwrapped.end()
        if let times = found.survey.folderTimes { pipeline.folderTimes = times }
        var delta = ScanDelta(added: queue.added, changed: queue.changed)
        pipeline.merge(found.survey, of: folder, readPaths: queue.readPaths, trackReads: queue.trackReads, named: named, into: &delta)
        return ScanPipeline.FolderScan(survey: found.survey, delta: delta, heldMoves: found.heldMoves)
    }

    /// One folder scan's read batches, merged in order.
    struct MergeQueue {
        /// Whether anything was known before the scan (a first mount knows nothing: nothing can
        /// be gone, and the paths read need no set to tell which known files are).
        let trackReads: Bool
        var batches: [ReadStream.Batch] = []
        var merged = 0
        /// Whether room was made for every batch not merged once the walk ended.
        var reserved = false
        /// Files taken from the walk and not merged yet.
        var unmerged: Int { batches[merged...].reduce(0) { $0 + $1.count } }
        /// The paths read, as `ScanDelta` has them: not known before at their path, or known.
        var added: [String] = []
        var changed: [String] = []
        /// The paths read, to look up (empty when nothing was known before: `trackReads`).
        var readPaths: Set<String> { trackReads ? Set(added).union(changed) : [] }
        let started = Date()
        init(trackReads: Bool) { self.trackReads = trackReads }
    }
}

/// What the pipeline knew when a walk began, for the walk to ask on its thread: a value, which
/// the merges meanwhile never change. It shares the state's storage (made for nothing); the
/// first merge while the walk holds it copies the state, which the merges change from then on,
/// and the walk's copy goes when the walk ends. A walk that began with nothing known is told
/// nothing.
struct KnownSnapshot: KnownFiles, Sendable {
    let state: LibraryState

    init(_ state: LibraryState) { self.state = state.isEmpty ? LibraryState() : state }

    var isEmpty: Bool { state.isEmpty }
    func known(_ relativePath: String) -> IndexedFile? { state.known(relativePath) }
    func forEachPath(_ body: (String) -> Void) { state.forEachPath(body) }

    /// The files known, by identity, for a walk to take those found at new paths from
    /// (`KnownMoves`: the paths by inode made when first asked, once per walk, on its thread).
    func moves(minimumBatch: Int, moved: @escaping ([FileMove]) -> Void) -> KnownMoves {
        var pathsByInode: [UInt64: String]?
        return KnownMoves(file: { identity in
            if pathsByInode == nil { pathsByInode = state.pathsByInode() }
            guard let path = pathsByInode?[identity.inode], let (file, photo) = state.held(at: path) else { return nil }
            return (path, file, photo)
        }, moved: moved, minimumBatch: minimumBatch)
    }
}
