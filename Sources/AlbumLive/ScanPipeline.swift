import AlbumCore
import AlbumMetadata
import AlbumSystem
import FoundationEssentials

/// A scan of the library in its named stages, for one folder at a time (and everything below it):
/// **Survey** (the walk beneath SOURCE's descriptor, each file classified: unchanged, found at a
/// new path, to read, still being written: `LibraryScanner.survey`) → **Read** (headers, a batch
/// at a time on the reader threads as the walk finds them, each batch's rows saved as soon as it
/// is read: `ReadStream`, `IndexWriter`) → **Merge** (into what is known, `known`, a batch at a
/// time) → a `ScanDelta`. The mount's scans (`LibraryCoordinator`, which schedules them and
/// publishes what they found), `albumfs index` and the tests all scan through it.
///
/// Not thread-safe: scans run one at a time, on one thread (the coordinator's queue); `known` is
/// read and changed only there.
public final class ScanPipeline {
    public let scanner: LibraryScanner
    public let index: FileIndexStore?
    /// Every file known, and its photo: what the index held (`init(scanner:index:log:)`), then
    /// what each scan merged.
    public var known: LibraryState
    /// The times of the folders the walks listed (`FolderTimes`).
    public let folderTimes = FolderTimes()

    public init(scanner: LibraryScanner, index: FileIndexStore?, known: LibraryState = LibraryState()) {
        self.scanner = scanner
        self.index = index
        self.known = known
    }

    /// What the index holds, decided as rows are read (the evidence of 100,000 files is never in
    /// memory at once); nothing when it cannot be read, which `log` says (its words unprefixed).
    public static func known(from index: FileIndexStore?, scanner: LibraryScanner, log: (String) -> Void) -> LibraryState {
        var state = LibraryState()
        guard let index else { return state }
        // (A photo's row from before its owner and mode were kept is read again, once.)
        do { try index.forEach { if !$0.lacksAccess { state.put($0, scanner: scanner) } } } catch {
            log("warning: the index cannot be read (\(error)); scanning everything")
            state = LibraryState()
        }
        return state
    }

    /// What a scan is told as it goes, besides its result.
    public struct Hooks {
        /// Each folder the walk enters (absolute path).
        public var onFolder: (String) -> Void = { _ in }
        /// `(done, total)` header reads, from the reader threads.
        public var progress: (@Sendable (Int, Int) -> Void)?
        /// Files handed to the readers so far, as the walk hands more on.
        public var handedOff: (Int) -> Void = { _ in }
        /// After each read batch is merged into `known`: a moment to show what is known so far.
        public var merged: (MergeProgress) -> Void = { _ in }
        public init() {}
    }

    /// How far the merging of a folder's read batches is.
    public struct MergeProgress {
        public var merged: Int
        public var batches: Int
        public var walkDone: Bool
        /// Seconds a batch took so far, on average.
        public var perBatch: Double
        /// Whether the folder's last merge is about a second away or less.
        public var finishingSoon: Bool { walkDone && perBatch * Double(batches - merged) < 1 }
    }

    /// What one folder's scan found and changed.
    public struct FolderScan {
        public var survey: LibraryScanner.Survey
        /// What changed below the folder (its `gone`: the rows to remove from the index).
        public var delta: ScanDelta
        /// Files taken from `known` at new paths (`LibraryScanner.Held`), whose index rows are
        /// to be copied (`IndexWriter.save(moves:)`).
        public var heldMoves: [FileMove]
    }

    /// Where a scan looks files new at their path up by their identity (a folder renamed or
    /// moved): the index, whose rows found go to `writer`; nothing when nothing is known yet
    /// (a first mount), and nothing but `known` without an index.
    public func elsewhere(saving writer: IndexWriter) -> LibraryScanner.Elsewhere? {
        guard !known.isEmpty else { return nil }
        return index.map { LibraryScanner.Elsewhere(index: $0, found: writer.save) }
            ?? LibraryScanner.Elsewhere(lookup: { files in files.map { _ in nil } }, found: { _ in })
    }

    /// Files new at their path, asked of the index together, from which they are first looked for
    /// in `known` (`LibraryScanner.Held.worthFrom`): a batch of the walk is 256
    /// (`LibraryScanner.lookupBatch`), a folder of a few dozen renamed goes to the index.
    static let heldWorthFrom = 64

    /// Scans `folder` ("" the library): surveys it, reads what changed (the rows saved to
    /// `writer` as read), and merges both into `known`. `settledBefore`: files changed after it
    /// may still be being written, and wait (nil: take everything); `complete` names files known
    /// whole whatever their times. `unavailable` says why the folder cannot be scanned now (its
    /// disk not mounted): what is known below it is kept. `skipping` takes the folders whose
    /// times are unchanged since the last walk as they were, but for `mustList` (`FolderTimes`).
    public func scan(_ folder: String, writer: IndexWriter, settledBefore: Timestamp? = nil, complete: Set<String> = [],
                     elsewhere: LibraryScanner.Elsewhere?, unavailable: String? = nil, skipping: Bool = false,
                     mustList: Set<String> = [], named: Set<String> = [], hooks: Hooks = Hooks()) -> FolderScan {
        var heldMoves: [FileMove] = []
        // (Nothing known when the walk begins: every path it reads is new, and none needs asking.)
        let nothingKnown = known.isEmpty
        var reads = MergeQueue(trackReads: !nothingKnown)
        let onRead: @Sendable (inout [ReadStream.Read]) -> Void = { read in
            writer.save(read.lazy.map(\.file))
            for i in read.indices { read[i].file.slim() }
        }
        let survey: LibraryScanner.Survey
        if let unavailable {
            survey = .unavailable(unavailable)
        } else if nothingKnown && elsewhere == nil {
            // The walk asks `known` nothing: it goes on on a thread of its own while batches
            // merge here, so the readers never wait for a merge or a tree shown meanwhile.
            let walk = WalkAlongside { [self, onFolder = hooks.onFolder, progress = hooks.progress] handedOff in
                scanner.surveyReading(under: folder, previous: KnownInPlace(pipeline: self, nothingKnown: true),
                                      settledBefore: settledBefore, complete: complete,
                                      folders: FolderWalk(times: folderTimes, skipping: skipping, mustList: mustList),
                                      onFolder: onFolder, onRead: onRead, progress: progress, handedOff: handedOff)
            }
            survey = mergeAlongside(walk, &reads, hooks)
        } else {
            survey = scanner.surveyReading(
                under: folder, previous: KnownInPlace(pipeline: self, nothingKnown: nothingKnown), settledBefore: settledBefore, complete: complete,
                elsewhere: holding(elsewhere) { heldMoves += $0 },
                folders: FolderWalk(times: folderTimes, skipping: skipping, mustList: mustList), onFolder: hooks.onFolder,
                onRead: onRead, progress: hooks.progress,
                handedOff: { [self] batch in
                    reads.batches.append(batch)
                    hooks.handedOff(reads.handedOff)
                    mergeBatches(&reads, walkDone: false, hooks)
                })
        }
        mergeBatches(&reads, walkDone: true, hooks)
        var delta = ScanDelta(added: reads.added, changed: reads.changed)
        merge(survey, of: folder, readPaths: reads.readPaths, trackReads: reads.trackReads, named: named, into: &delta)
        return FolderScan(survey: survey, delta: delta, heldMoves: heldMoves)
    }

    /// `elsewhere`, asked first of the files `known` holds at other paths (the paths by inode
    /// made when first asked, once per walk: `known` changes between walks).
    private func holding(_ elsewhere: LibraryScanner.Elsewhere?, moved: @escaping ([FileMove]) -> Void) -> LibraryScanner.Elsewhere? {
        guard var elsewhere else { return nil }
        var pathsByInode: [UInt64: String]?
        elsewhere.held = LibraryScanner.Held(file: { [unowned self] identity in
            if pathsByInode == nil { pathsByInode = known.pathsByInode() }
            guard let path = pathsByInode?[identity.inode], let (file, photo) = known.held(at: path) else { return nil }
            return (path, file, photo)
        }, moved: moved, worthFrom: index == nil ? 1 : Self.heldWorthFrom)
        return elsewhere
    }

    /// Merges a folder's survey into `known`: files moved in, files gone; what changed goes to `delta`.
    /// `named`: paths the watcher named since the last rescan, where a file gone is looked for
    /// first (a pass over every known path takes a third of a second at a million).
    private func merge(_ survey: LibraryScanner.Survey, of folder: String, readPaths: Set<String>, trackReads: Bool,
                       named: Set<String>, into delta: inout ScanDelta) {
        delta.moved += survey.moved.map(\.move)
        // Files found by their identity under a new path whose old path in this folder the walk
        // found nothing at (a folder renamed) take their old entries' place; the others are
        // put below, once the files gone are dropped.
        var movedInPlace = movedAway(survey, in: folder, readPaths: readPaths)
        for i in movedInPlace.indices where movedInPlace[i] {
            movedInPlace[i] = known.move(from: survey.moved[i].from, survey.moved[i].file, photo: survey.moved[i].photo)
            if movedInPlace[i] { delta.gone.append(survey.moved[i].from) }
        }
        // Everything below the folder is replaced by what the scan found, except files still
        // being written, which keep their last settled version until they settle.
        let deferredKnown = survey.deferred.filter { known.knows($0) }.count
        let movedHereNew = survey.moved.indices.count { !movedInPlace[$0] && !known.knows(survey.moved[$0].file.relativePath) }
        // (Every file found below the folder is known now, but those moved here from elsewhere,
        // put below: as many known there as found, and nothing known there is gone.)
        let found = survey.reused.count + survey.moved.count + survey.toRead.count + deferredKnown
        if trackReads && known.fileCount(under: folder) + movedHereNew != found {
            let kept = ScanDelta.kept(survey, read: readPaths)
            var gone = ScanDelta.gone(named.filter { known.knows($0) }, under: folder, kept: kept, unlisted: survey.unlisted)
            for path in gone { known.drop(path) }
            if known.fileCount(under: folder) + movedHereNew != found {
                let more = ScanDelta.gone(known.paths, under: folder, kept: kept, unlisted: survey.unlisted)
                for path in more { known.drop(path) }
                gone += more
            }
            delta.gone += gone
        }
        // Files found by their identity were not read (decided, and saved, by the survey).
        // Taken after the files gone are dropped, so a renamed folder's photos take their old
        // paths' room (taken before, they would make the map of files and the photo array grow
        // to twice the library's size for good, and the rescan's peak with them).
        for (i, found) in survey.moved.enumerated() where !movedInPlace[i] { known.put(found.file, photo: found.photo) }
    }

    /// Which files of `survey.moved` have their old path gone: inside `folder`, in a folder it
    /// listed, and the walk found nothing there (no file reused, read or waiting to settle).
    /// (`LibraryState.move` then checks `known` holds that very file there.)
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

    /// One folder scan's read batches, merged in order.
    struct MergeQueue {
        /// Whether anything was known before the scan (a first mount knows nothing: nothing can
        /// be gone, and the paths read need no set to tell which known files are).
        let trackReads: Bool
        var batches: [ReadStream.Batch] = []
        var merged = 0
        /// Files handed to the readers so far.
        var handedOff: Int { batches.reduce(0) { $0 + $1.count } }
        /// Files handed to the readers and not merged yet.
        var unmerged: Int { batches[merged...].reduce(0) { $0 + $1.count } }
        /// The paths read, as `ScanDelta` has them: not known before at their path, or known.
        var added: [String] = []
        var changed: [String] = []
        /// The paths read, to look up (empty when nothing was known before: `trackReads`).
        var readPaths: Set<String> { trackReads ? Set(added).union(changed) : [] }
        let started = Date()
        init(trackReads: Bool) { self.trackReads = trackReads }
    }

    /// Merges read batches (already saved to the index, slimmed of their evidence) in order: while
    /// the walk goes on, those read already; once it is done, every one, waiting for each.
    private func mergeBatches(_ q: inout MergeQueue, walkDone: Bool, _ hooks: Hooks) {
        if walkDone {
            known.reserve(more: q.unmerged)
        } else {
            known.expect(atLeast: known.fileCount + q.unmerged)
        }
        while q.merged < q.batches.count, walkDone || q.batches[q.merged].isComplete {
            mergeNext(&q, walkDone: walkDone, hooks)
        }
    }

    /// Merges the next batch of `q`, waiting until it is read.
    private func mergeNext(_ q: inout MergeQueue, walkDone: Bool, _ hooks: Hooks) {
        for read in q.batches[q.merged].take() {
            // (A walk lists each path once: with nothing known before it, every path read is new.)
            if q.trackReads && known.knows(read.file.relativePath) { q.changed.append(read.file.relativePath) } else { q.added.append(read.file.relativePath) }
            known.put(read.file, photo: read.photo)
        }
        q.merged += 1
        hooks.merged(MergeProgress(merged: q.merged, batches: q.batches.count, walkDone: walkDone,
                                   perBatch: Date().timeIntervalSince(q.started) / Double(q.merged)))
    }

    /// Merges the batches `walk` hands on, in order, as each is read, while the walk goes on on
    /// its own thread; returns once the walk has ended, the batches it handed on last unmerged
    /// (`mergeBatches` with the walk done takes them, room made for all at once).
    private func mergeAlongside(_ walk: WalkAlongside, _ q: inout MergeQueue, _ hooks: Hooks) -> LibraryScanner.Survey {
        walk.start()
        while true {
            let handed = walk.handed(waiting: q.merged == q.batches.count)
            q.batches += handed.batches
            if !handed.batches.isEmpty { hooks.handedOff(q.handedOff) }
            if let survey = handed.survey { return survey }
            guard q.merged < q.batches.count else { continue }
            known.expect(atLeast: known.fileCount + q.unmerged)
            mergeNext(&q, walkDone: false, hooks)
        }
    }
}

/// What a pipeline knows, read where it is. A copy of `known` handed to the walk would hold its
/// storage while the walk's batches are merged into it, and the first merge would copy it whole:
/// a million files' map and photos for a live change of one folder. (The walk asks of each path
/// before it hands the path on to be read and merged: what it is told is what was known.)
/// A walk that began with nothing known is told nothing: the paths merged meanwhile are the
/// ones it found itself, each once, so asking the growing map of each path finds nothing.
private struct KnownInPlace: KnownFiles {
    unowned let pipeline: ScanPipeline
    /// Whether the pipeline knew nothing when the walk began.
    let nothingKnown: Bool
    var isEmpty: Bool { nothingKnown || pipeline.known.isEmpty }
    func known(_ relativePath: String) -> IndexedFile? { nothingKnown ? nil : pipeline.known.known(relativePath) }
    func forEachPath(_ body: (String) -> Void) { if !nothingKnown { pipeline.known.forEachPath(body) } }
}

/// A scan's walk on a thread of its own (`ScanPipeline.mergeAlongside`): the batches it hands on
/// and, once it ends, its survey, for the merging thread to take.
/// (`@unchecked Sendable`: `batches` and `survey` change only under `condition`; the walk's
/// closure runs on the walk's thread alone, and touches nothing the merging thread does: a walk
/// that began with nothing known asks `known` nothing, and the folder times it notes are read
/// once it has ended.)
final class WalkAlongside: @unchecked Sendable {
    typealias Walk = (_ handedOff: @escaping (ReadStream.Batch) -> Void) -> LibraryScanner.Survey
    private let walk: Walk
    private let condition = Condition()
    // Guarded by `condition`.
    private var batches: [ReadStream.Batch] = []
    private var survey: LibraryScanner.Survey?

    /// What the walk handed on since last asked, and its survey once it has ended.
    struct Handed {
        var batches: [ReadStream.Batch]
        var survey: LibraryScanner.Survey?
    }

    init(_ walk: @escaping Walk) { self.walk = walk }

    func start() {
        Threads.detach { [self] in
            let survey = walk { batch in
                self.condition.lock()
                self.batches.append(batch)
                self.condition.signal()
                self.condition.unlock()
            }
            condition.lock()
            self.survey = survey
            condition.signal()
            condition.unlock()
        }
    }

    /// The batches handed on since last asked (and the survey, once the walk has ended), waiting
    /// for one when `waiting` and there are none yet.
    func handed(waiting: Bool) -> Handed {
        condition.lock()
        defer { condition.unlock() }
        while waiting && batches.isEmpty && survey == nil { condition.wait() }
        defer { batches = [] }
        // (With the survey come the batches the walk handed on last: none is left behind it.)
        return Handed(batches: batches, survey: survey)
    }
}
