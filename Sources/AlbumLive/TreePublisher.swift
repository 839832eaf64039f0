import AlbumCore
import AlbumMetadata
import AlbumSystem
import AlbumVFS
import Dispatch
import FoundationEssentials

/// Shows what the scans found: builds the views from the files known (`ScanPipeline.known`) and
/// what the walks found beside them (folder problems, files passed over, whether the library can
/// be listed) with `duplicates/`'s groups, swaps them into the filesystem, tells the kernel what
/// changed, and keeps the status `.albumfs/status` reads.
///
/// (`@unchecked Sendable`: what it keeps for the next tree is read and written only on the
/// coordinator's queue, through `onQueue` and `known`, which check it; what other threads read is
/// in `Locked` values: the status, the kernel notifier, whether the views changed since saved.)
final class TreePublisher: @unchecked Sendable {
    /// What only the coordinator's queue reads and writes (`onQueue`, which checks that it runs
    /// there): what the walks found beside the files, the groups last shown, the last publish's time.
    struct State {
        /// The problems of folders (one that cannot be listed, a name that is not UTF-8) found by the
        /// walks so far: each rescan of a folder replaces those below it.
        var folderProblems: [ScanProblem] = []
        /// What the walks so far passed over (hidden files, links, system folders), kept as
        /// `folderProblems` are: each rescan of a folder replaces what it passed over in the folders
        /// it listed.
        var passedOver: [NotShownFile] = []
        /// How long the last publish took: publishing during a long scan waits a multiple of it.
        var publishSeconds = 0.0
        /// Files the rescan under way found under new paths (their folder renamed or moved): every
        /// tree it publishes gives their photos their old paths' inode numbers.
        var renamed: [FileMove] = []
        /// Whether the library's folder can be listed, and what was said when it could not.
        var availability: LibraryAvailability
        /// Whether the tree shown came from a views snapshot: the first scan then publishes the views
        /// it builds from the index and the files, whatever it finds changed.
        var treeFromSnapshot = false
        /// Each copy's group, by path (`DuplicateFinder.groups`), as last found.
        var duplicateGroups: [String: UInt32] = [:]
        /// Each similar photo's group, by path (`SimilarFinder`), as last found.
        var similarGroups: [String: UInt32] = [:]

        init(availability: LibraryAvailability) { self.availability = availability }
    }

    let fs: AlbumFileSystem
    let options: CoordinatorOptions
    let scanner: LibraryScanner
    let index: FileIndexStore?
    let log: @Sendable (String) -> Void
    let queue: DispatchQueue
    /// The scans' pipeline, whose `known` files each tree is built of.
    let pipeline: ScanPipeline
    /// Counts the trees published, for an open of a moved photo's file waiting for one.
    let pending: PendingChanges
    let statusBox = Locked(LibraryStatus())
    let invalidate: Locked<(@Sendable (TreeChanges) -> Void)?> = Locked(nil)
    /// Whether a publish changed the tree since the views were last saved (`keeper`).
    let viewsUnsaved = Locked(false)
    /// Saves the views between mounts (nil: none kept).
    let keeper: ViewsKeeper?
    /// Finds `duplicates/`'s groups (nil: the view is not shown).
    let duplicates: DuplicateFinder?
    /// Finds `duplicates/similar/`'s groups in the background (nil: not shown, or no hasher).
    let similar: SimilarFinder?
    /// `State`, each access checked to run on the coordinator's queue.
    var onQueue: QueueConfined<State>

    init(_ parts: CoordinatorParts, scanner: LibraryScanner, pipeline: ScanPipeline, queue: DispatchQueue,
         pending: PendingChanges, duplicates: DuplicateFinder?) {
        let (options, index, log) = (parts.options, parts.index, parts.log)
        fs = parts.fs
        keeper = parts.keeper
        self.options = options
        self.index = index
        self.log = log
        self.scanner = scanner
        self.pipeline = pipeline
        self.queue = queue
        self.pending = pending
        self.duplicates = duplicates
        onQueue = QueueConfined(State(availability: LibraryAvailability(root: scanner.root, index: index, log: log)), on: queue)
        similar = options.perceptualHasher.flatMap { hasher in
            options.views.contains(LibraryViews.duplicates)
                ? SimilarFinder(root: scanner.root, store: index as? SimilarHashStore, hasher: hasher, log: log) : nil
        }
        if duplicates != nil { statusBox.withLock { $0.duplicates = "waiting for the scan" } }
        if similar != nil { statusBox.withLock { $0.similar = "waiting for the scan" } }
    }

    /// The files known, as the scans merged them (read on the queue only).
    var known: LibraryState {
        _read {
            dispatchPrecondition(condition: .onQueue(queue))
            yield pipeline.known
        }
    }

    var libraryAvailable: Bool { onQueue.availability.isAvailable }

    /// Takes the groups the tree shown holds (`LibraryCoordinator.libraryFromIndex`, or the views
    /// snapshot saved with them): a scan that finds them unchanged keeps that tree.
    func showing(fromSnapshot: Bool) {
        onQueue.treeFromSnapshot = fromSnapshot
        guard duplicates != nil else { return }
        onQueue.duplicateGroups = DuplicateFinder.groupsFromIndex(known.photos, store: index as? ContentHashStore) { [log] in log("albumfs: " + $0) }
        onQueue.similarGroups = SimilarFinder.groupsFromIndex(known.photos, exact: onQueue.duplicateGroups, store: index as? SimilarHashStore) { [log] in
            log("albumfs: " + $0)
        }
    }

    /// Rebuilds the views from the current photos and swaps them into the filesystem; `complete`
    /// false while the scan is still reading.
    @discardableResult
    func publish(complete: Bool = true) -> ScanReport {
        let started = Date()
        let report = known.report(folderProblems: onQueue.folderProblems)
        // (A few photos added, gone or changed: merged into, or taken out of, the views shown.)
        let groups = known.byPhoto(onQueue.duplicateGroups)
        let similar = known.byPhoto(onQueue.similarGroups)
        let settings = ViewSettings(thumbnailBoxes: options.thumbnailBoxes, withStatus: true, withPicks: true, views: options.views,
                                    emptyMtime: Timestamp.now).grouping(duplicates: groups, similar: similar)
        let library = LibraryViews.updated(fs.library, photos: report.photos, settings) ?? LibraryViews.build(photos: report.photos, settings)
        // (A file found under a new path while its old one is still there, a hard link, is another
        // entry: its photo gets numbers of its own. A rename given again is a no-op.)
        let changes = fs.update(library, complete: complete, renamed: onQueue.renamed.filter { !known.knows($0.from) })
        pending.treePublished()
        if !changes.isEmpty { viewsUnsaved.withLock { $0 = true } }
        if !changes.isEmpty, let invalidate = invalidate.withLock({ $0 }) { invalidate(changes) }
        show(report)
        onQueue.publishSeconds = Date().timeIntervalSince(started)
        return report
    }

    /// Says what the tree shown holds without building it again (a scan that changed nothing).
    func showKeptTree() -> ScanReport {
        let report = known.report(folderProblems: onQueue.folderProblems)
        show(report)
        return report
    }

    /// The counts and problems `.albumfs/status` and `.albumfs/errors` show, and whether the
    /// library is available, to the status and to the filesystem (whose reads of an unavailable
    /// library answer EIO): set together, so a reader that sees `unavailable` sees why too.
    func show(_ report: ScanReport) {
        fs.setLibraryAvailable(onQueue.availability.isAvailable)
        let notShown = known.notShown(scanner)
        statusBox.withLock { s in
            s.photos = report.photos.count
            s.filesSeen = report.filesSeen
            (s.notShown, s.imagesNotShown) = notShown
            s.notShown += onQueue.passedOver
            s.problems = report.problems
            s.libraryAvailable = onQueue.availability.isAvailable
        }
    }

    /// Takes in what a folder's scan found beside its files: its files' moves for the views' inode
    /// numbers, its folders' problems, what it passed over, whether the library could be listed.
    func note(_ found: ScanPipeline.FolderScan, of folder: String) {
        let survey = found.survey
        onQueue.renamed += found.delta.moved
        onQueue.folderProblems.removeAll { $0.relativePath.isWithin(folder: folder) }
        onQueue.folderProblems += survey.folderProblems
        onQueue.passedOver = Self.passedOver(onQueue.passedOver, found: survey.passedOver, under: folder,
                                             unchangedFolders: survey.unchangedFolders, unlisted: survey.unlisted)
        if folder.isEmpty { noteAvailability(listed: !survey.unlisted.contains("")) }
    }

    /// What was passed over, after a walk of `folder` found `found` there: it replaces what was
    /// known in the folders the walk listed, not in those it took as they were (`unchangedFolders`:
    /// their entries are as they were) or could not list (`unlisted`: not known to be gone).
    static func passedOver(_ known: [NotShownFile], found: [NotShownFile], under folder: String,
                           unchangedFolders: [String], unlisted: [String]) -> [NotShownFile] {
        let unchanged = Set(unchangedFolders)
        var kept = known
        kept.removeAll { file in
            file.path.isWithin(folder: folder) && !unchanged.contains(file.path.folderBeforeLastSlash)
                && !unlisted.contains { file.path.isWithin(folder: $0) }
        }
        guard !unlisted.isEmpty else { return kept + found }
        // (A folder whose listing failed part way keeps its entries: what the walk found there
        // again is not named twice.)
        let there = Set(kept.lazy.filter { file in unlisted.contains { file.path.isWithin(folder: $0) } }.map(\.path))
        return kept + found.filter { !there.contains($0.path) }
    }

    /// Whether the scan of the whole library could list its folder (`.` in the folder problems
    /// says why not), for the status and the one line logged when that changes.
    func noteAvailability(listed: Bool) {
        let why = onQueue.folderProblems.first { $0.relativePath == "." }?.message ?? "cannot list folder"
        onQueue.availability.note(listed: listed, why: why)
    }
}
