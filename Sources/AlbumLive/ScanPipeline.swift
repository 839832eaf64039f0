import AlbumCore
import AlbumMetadata
import AlbumSystem
import Dispatch
import FoundationEssentials

/// A scan of the library in its named stages, for one folder at a time (and everything below it),
/// as a producer and a consumer: **Survey** (the walk beneath SOURCE's descriptor on a thread of
/// its own, `ConcurrentWalk`, each file classified against what was known when it began,
/// `KnownSnapshot`: unchanged, found at a new path, to read, still being written:
/// `LibraryScanner.survey`) → **Read** (headers, a batch at a time on the reader threads as the
/// walk finds them, each batch's rows saved as soon as it is read: `ReadStream`, `IndexWriter`;
/// the batches queued, bounded, for the consumer) → **Merge** (into what is known, `known`, a
/// batch at a time: `ScanRun.next`; then the survey: `ScanRun.finish`) → a `ScanDelta`. The
/// mount's scans (`LibraryCoordinator`, which schedules them, runs the merge loop and publishes
/// between batches), `albumfs index` and the tests all scan through it.
///
/// Not thread-safe: scans run one at a time, merged on one thread (the coordinator's queue);
/// `known` is read and changed only there, which each access checks when the pipeline is made
/// with that queue (`confinedTo`).
public final class ScanPipeline {
    public let scanner: LibraryScanner
    public let index: FileIndexStore?
    /// The queue `known` is confined to: each access checks it runs there (Dispatch's
    /// precondition, a trap rather than a race); nil for a pipeline one thread owns whole
    /// (`albumfs index`, the tests).
    public let queue: DispatchQueue?
    private var state: LibraryState
    /// The times of the folders the walks listed (`FolderTimes`): a walk takes them with it and
    /// hands them back when its run finishes (`ScanRun.finish`).
    public internal(set) var folderTimes = FolderTimes()

    public init(scanner: LibraryScanner, index: FileIndexStore?, known: LibraryState = LibraryState(), confinedTo queue: DispatchQueue? = nil) {
        self.scanner = scanner
        self.index = index
        self.queue = queue
        state = known
    }

    /// Every file known, and its photo: what the index held (`init(scanner:index:log:)`), then
    /// what each scan merged. A merge changes it a batch at a time, through one access
    /// (`ScanRun`): one check a batch, not one a file.
    public var known: LibraryState {
        _read {
            if let queue { dispatchPrecondition(condition: .onQueue(queue)) }
            yield state
        }
        _modify {
            if let queue { dispatchPrecondition(condition: .onQueue(queue)) }
            yield &state
        }
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

    /// What one folder's scan found and changed.
    public struct FolderScan {
        public var survey: LibraryScanner.Survey
        /// What changed below the folder (its `gone`: the rows to remove from the index).
        public var delta: ScanDelta
        /// Files taken from `known` at new paths (`KnownMoves`), whose index rows are
        /// to be copied (`IndexWriter.save(moves:)`).
        public var heldMoves: [FileMove]
    }

    /// Where a scan looks files new at their path up by their identity (a folder renamed or
    /// moved): the index, whose rows found go to `writer`; nothing when nothing is known yet
    /// (a first mount), and nothing but `known` without an index.
    public func moveLookup(saving writer: IndexWriter) -> MoveLookup? {
        guard !known.isEmpty else { return nil }
        return index.map { MoveLookup(index: $0, found: writer.save) }
            ?? MoveLookup(lookup: { files in files.map { _ in nil } }, found: { _ in })
    }

    /// Files new at their path, asked of the index together, from which they are first looked for
    /// in `known` (`KnownMoves.minimumBatch`): a batch of the walk is 256
    /// (`LibraryScanner.lookupBatch`), a folder of a few dozen renamed goes to the index.
    static let knownMovesMinimumBatch = 64

    /// Starts the scan `request` asks for: its walk on a thread of its own (`ConcurrentWalk`),
    /// asking a snapshot of what is known now (`KnownSnapshot`), the files it finds to read
    /// going to the reader threads a batch at a time. The caller merges the batches
    /// (`ScanRun.next`) and then the survey (`ScanRun.finish`), on this pipeline's one thread.
    public func start(_ request: ScanRequest) -> ScanRun {
        ScanRun(pipeline: self, request: request)
    }

    /// Scans as `start` does and merges every batch and the survey, showing nothing meanwhile
    /// (`albumfs index`, the tests).
    public func scan(_ request: ScanRequest) -> FolderScan {
        let run = start(request)
        while run.next() != nil {}
        return run.finish()
    }

    /// Merges a folder's survey into `known`: files moved in, files gone; what changed goes to `delta`.
    /// `named`: paths the watcher named since the last rescan, where a file gone is looked for
    /// first (a pass over every known path takes a third of a second at a million).
    func merge(_ survey: LibraryScanner.Survey, of folder: String, readPaths: Set<String>, trackReads: Bool,
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
}
