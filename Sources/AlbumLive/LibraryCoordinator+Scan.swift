import AlbumCore
import AlbumMetadata
import AlbumSystem
import AlbumVFS
import Dispatch
import FoundationEssentials

/// The coordinator's scans: each rescan runs the scan pipeline (`ScanPipeline`: survey, read,
/// merge into `state`) over its folders, publishing the views as batches land, then writes the
/// index and says what changed. All on `queue`.
extension LibraryCoordinator {

    func fullScan(first: Bool) {
        rescan(["" as String], first: first)
    }

    /// (Whether `folders` is the whole library.)
    static func isWhole(_ folders: [String]) -> Bool { folders.contains("") }

    /// What a rescan sets up once for all the folders it walks.
    struct ScanSetup {
        let started = Date()
        let first: Bool
        /// Whether the scan walks the whole library (its views then saved for the next mount).
        let whole: Bool
        /// Files changed after this may still be being written (nil: take everything).
        let settledBefore: Timestamp?
        let writer: IndexWriter
        /// Whether the writer holds the rows until the views are published (a first scan).
        let holds: Bool
        /// What the scan asks of files new at their path (nil: a first mount knows nothing).
        let moveLookup: MoveLookup?
        /// Nil: every folder is listed. Else folders whose times are unchanged since the last walk
        /// are taken as they were (`FolderTimes`), but these.
        let skippingBut: Set<String>?
        /// Paths the watcher named since the last rescan.
        let named: Set<String>
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
    }

    /// Rescans folders (recursively) through the pipeline; then the views are published and the
    /// index written. `skippingUnchangedBut`: nil lists every folder; else folders whose times are
    /// unchanged since the last walk are taken as they were, but these (a periodic rescan).
    /// `named`: paths the watcher named since the last rescan.
    func rescan(_ folders: [String], first: Bool = false, skippingUnchangedBut mustList: Set<String>? = nil, named: Set<String> = []) {
        let setup = beginScan(first: first, whole: Self.isWhole(folders), skippingBut: mustList, named: named)
        if setup.whole && mustList == nil { onQueue.lastFullWalk = setup.started }
        let folderProblemsBefore = onQueue.folderProblems
        var tally = ScanTally()
        onQueue.renamed = []
        defer { onQueue.renamed = [] }
        for folder in folders {
            note(scan(folder, setup), of: folder, into: &tally)
        }
        finishScan(setup, tally, changedProblems: onQueue.folderProblems != folderProblemsBefore)
    }

    /// The status says a scan runs; the settle edge, the index writer and the lookup of files
    /// known elsewhere are made.
    func beginScan(first: Bool, whole: Bool, skippingBut mustList: Set<String>?, named: Set<String>) -> ScanSetup {
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
        return ScanSetup(first: first, whole: whole, settledBefore: settled, writer: writer, holds: holds,
                         moveLookup: pipeline.moveLookup(saving: writer), skippingBut: mustList, named: named)
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
    func scan(_ folder: String, _ setup: ScanSetup) -> ScanPipeline.FolderScan {
        statusBox.withLock { $0.progressTotal = 0; $0.progressDone = 0 }
        var pacing = PublishPacing(started: setup.started)
        let run = pipeline.start(request(folder, setup))
        while let batch = run.next() {
            statusBox.withLock { $0.progressTotal = max($0.progressTotal, batch.files) }
            duplicates?.keepHashesMadeWhileReading()
            // A tree build just before the scan's own last one would only delay it.
            guard batch.merged < batch.batches, !batch.finishingSoon, pacing.isDue(at: Date(), publishSeconds: onQueue.publishSeconds) else { continue }
            publish(complete: false)
            pacing.last = Date()
        }
        let found = run.finish()
        let reads = found.survey.toRead.count
        statusBox.withLock { $0.progressTotal = reads }
        if reads > 0 { progress?(reads, reads, true) }
        return found
    }

    /// What the scan of `folder` asks of the pipeline.
    func request(_ folder: String, _ setup: ScanSetup) -> ScanRequest {
        var request = ScanRequest(folder: folder, writer: setup.writer, moveLookup: setup.moveLookup)
        request.settledBefore = setup.settledBefore
        request.complete = onQueue.wholeFiles
        // The folder a disk left when it was unmounted is listed fine, and empty: what it
        // held is unknown, not gone, as for a folder that cannot be listed at all.
        request.unavailable = folder.isEmpty ? onQueue.availability.diskNotMounted() : nil
        request.skippingUnchanged = setup.skippingBut != nil
        request.mustList = setup.skippingBut ?? []
        request.named = setup.named
        request.onFolder = { [watcher = watcher.withLock { $0 }] in watcher?.watch($0) }
        request.progress = { [self] done, total in
            // The stream's own total: the batches merged lag behind those read.
            statusBox.withLock { $0.progressDone = done; $0.progressTotal = max($0.progressTotal, total) }
            progress?(done, total, false)
        }
        return request
    }

    /// Takes in what a folder's scan found: its changes into the tally, its files' moves for the
    /// views' inode numbers, its problems, whether the library could be listed.
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
        onQueue.renamed += found.delta.moved
        if !onQueue.wholeFiles.isEmpty {
            // Every file the scan found below the folder is known now, but those still being
            // written: the few whole files named are looked up, not the folder's every file.
            let waiting = Set(survey.deferred)
            onQueue.wholeFiles = onQueue.wholeFiles.filter { !($0.isWithin(folder: folder) && state.knows($0) && !waiting.contains($0)) }
        }
        onQueue.folderProblems.removeAll { $0.relativePath.isWithin(folder: folder) }
        onQueue.folderProblems += survey.folderProblems
        notePassedOver(survey, of: folder)
        if folder.isEmpty { noteAvailability(listed: !survey.unlisted.contains("")) }
    }

    /// Publishes what the scan found, writes the index, says the scan is done, and looks again
    /// later at files still being written.
    func finishScan(_ setup: ScanSetup, _ tally: ScanTally, changedProblems: Bool) {
        // The views do not need the index: build them while the writer catches up. A rescan that
        // changed nothing (a remount's check of an unchanged library, most periodic rescans)
        // leaves the tree as it is: rebuilding a big library's views takes both cores a while.
        // (On a remount, the tree built from the index is this very tree.)
        let report: ScanReport
        let filesUnchanged = tally.reads == 0 && tally.delta.moved.isEmpty && tally.delta.gone.isEmpty
        // Duplicates are known when the scan ends: their files hashed as its last step.
        let regrouped = setup.first || !filesUnchanged ? findDuplicates() : false
        if setup.first || !filesUnchanged { findSimilar() }
        let unchanged = filesUnchanged && !changedProblems && !regrouped
        let snapshotShown = setup.first && onQueue.treeFromSnapshot ? Photo.fingerprint(fs.library.photos) : nil
        let keepsTree = unchanged && snapshotShown == nil
        if setup.first && !keepsTree { state.compactPhotos() }
        if keepsTree {
            report = state.report(folderProblems: onQueue.folderProblems)
            show(report)
        } else {
            report = publish()
        }
        if let snapshotShown { replacedSnapshotTree(unchanged: unchanged, shown: snapshotShown) }
        writeIndex(setup, tally)
        if setup.whole { saveViewsOnceWritten() }
        let seconds = Date().timeIntervalSince(setup.started)
        let watcher = watcher.withLock { $0 }
        statusBox.withLock { s in
            s.state = "done"
            s.headerReads += tally.reads
            s.lastScanSeconds = seconds
            s.lastScanChanges = tally.delta.summary
            s.lastScanFolders = (tally.foldersListed, tally.foldersUnchanged)
            s.scans += 1
            s.watchedFolders = watcher?.watchCount ?? 0
            s.watchLimitReached = watcher?.isAtLimit ?? false
        }
        // A scan leaves large transient arrays (survey, results, the previous tree); hand the freed
        // heap back to the system so RSS reflects what the mount holds.
        HeapTuning.trim()
        if setup.first {
            // (Said here, where a user looks, when an iPhone library seems to have lost its photos.)
            let (notShown, passedOver) = statusBox.withLock { ($0.imagesNotShown, $0.notShown.count) }
            var hint = notShown == 0 ? "" : "; \(notShown) HEIC/HEIF image\(notShown == 1 ? "" : "s") not shown (-o heif=on shows \(notShown == 1 ? "it" : "them"))"
            if passedOver > 0 { hint += "; \(passedOver) not shown in all (.albumfs/not-shown says why)" }
            log("albumfs: scan done: \(report.photos.count) photos, \(state.fileCount) files, \(tally.reads) read, in \(seconds.fixed(2)) s ("
                + (unchanged ? "nothing changed: the tree stays" : "last tree build \(onQueue.publishSeconds.fixed(2)) s") + ")" + hint)
        }
        lookAgainLater(at: tally.deferred)
        if setup.first { fs.fillDesktopThumbnailsAhead() }
        // (Once the scan is done, not at the first live change, which would wait for a pass over
        // every path; the map compacted after the views are shown, which do not need it.)
        if setup.first {
            queue.async { [self] in
                state.compactMap()
                HeapTuning.trim()
                state.countFolders()
            }
        }
    }

    /// The scan's last index writes: the rows of files taken at new paths, the removals, and the
    /// rows a first scan held (written after its views, the heap trimmed after them).
    func writeIndex(_ setup: ScanSetup, _ tally: ScanTally) {
        setup.writer.save(moves: tally.heldMoves)
        scanWriter.withLock { $0 = nil }
        if setup.holds {
            setup.writer.finishLater(removing: tally.delta.gone) { [self] outcome in
                statusBox.withLock { $0.indexWriteFailure = outcome.failure(after: $0.indexWriteFailure) }
                // (The evidence held for the index is freed only now.)
                HeapTuning.trim()
                index?.prepareLookups()
            }
        } else {
            let outcome = setup.writer.finish(removing: tally.delta.gone)
            statusBox.withLock { $0.indexWriteFailure = outcome.failure(after: $0.indexWriteFailure) }
        }
    }

    /// After a first scan whose tree came from a views snapshot, replaced by the one the index and
    /// the files give (the views then share the scan's photos, not a copy): the views need no new
    /// snapshot unless the photos differ from the snapshot's.
    func replacedSnapshotTree(unchanged: Bool, shown: Int) {
        onQueue.treeFromSnapshot = false
        if unchanged && Photo.fingerprint(state.photos) == shown { viewsUnsaved.withLock { $0 = false } }
    }

    /// Saves the views for the next mount once the index holds what they show (on the writer's
    /// queue, after this scan's writes).
    func saveViewsOnceWritten() {
        guard let keeper else { return }
        let library = fs.library
        let changed = viewsUnsaved.withLock { v in defer { v = false }; return v }
        indexQueue.async { keeper.save(library, changed: changed) }
    }

    /// Files still being written: look again once they can have settled (a change still pending
    /// until then, as `changes_pending` says).
    func lookAgainLater(at deferred: [String]) {
        guard !deferred.isEmpty else { return }
        onQueue.absorbedChange = max(onQueue.absorbedChange, pending.report())
        let folders = Set(deferred.map { $0.folderBeforeLastSlash })
        queue.asyncAfter(deadline: .now() + options.settle + 0.1) { [self] in
            for f in folders { onQueue.dirty.insert(f) }
            flush()
        }
    }

    /// Takes in what the walk of `folder` passed over (`passedOver(_:found:under:unchangedFolders:unlisted:)`).
    func notePassedOver(_ survey: LibraryScanner.Survey, of folder: String) {
        onQueue.passedOver = Self.passedOver(onQueue.passedOver, found: survey.passedOver, under: folder,
                                     unchangedFolders: survey.unchangedFolders, unlisted: survey.unlisted)
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

    /// Finds `duplicates/`'s groups again, hashing the files new or changed (`DuplicateFinder`),
    /// the status saying so while it reads; whether any photo's group changed.
    func findDuplicates() -> Bool {
        guard let duplicates else { return false }
        statusBox.withLock { $0.duplicates = "hashing" }
        let groups = duplicates.groups(for: state.photos) { [self] done, total in
            statusBox.withLock { $0.duplicates = "hashing \(done)/\(total)" }
        }
        let changed = groups != onQueue.duplicateGroups
        onQueue.duplicateGroups = groups
        statusBox.withLock {
            $0.duplicates = "done"
            $0.duplicateGroups = Int(groups.values.max() ?? 0)
        }
        return changed
    }

    /// Rebuilds the views from the current photos and swaps them into the filesystem; `complete`
    /// false while the scan is still reading.
    @discardableResult
    func publish(complete: Bool = true) -> ScanReport {
        let started = Date()
        let report = state.report(folderProblems: onQueue.folderProblems)
        // (A few photos added, gone or changed: merged into, or taken out of, the views shown.)
        let groups = state.byPhoto(onQueue.duplicateGroups)
        let similar = state.byPhoto(onQueue.similarGroups)
        let settings = ViewSettings(thumbnailBoxes: options.thumbnailBoxes, withStatus: true, withPicks: true, views: options.views,
                                    emptyMtime: Timestamp.now).grouping(duplicates: groups, similar: similar)
        let library = LibraryViews.updated(fs.library, photos: report.photos, settings) ?? LibraryViews.build(photos: report.photos, settings)
        // (A file found under a new path while its old one is still there, a hard link, is another
        // entry: its photo gets numbers of its own. A rename given again is a no-op.)
        let changes = fs.update(library, complete: complete, renamed: onQueue.renamed.filter { !state.knows($0.from) })
        pending.treePublished()
        if !changes.isEmpty { viewsUnsaved.withLock { $0 = true } }
        if !changes.isEmpty, let invalidate = invalidate.withLock({ $0 }) { invalidate(changes) }
        show(report)
        onQueue.publishSeconds = Date().timeIntervalSince(started)
        return report
    }

    /// The counts and problems `.albumfs/status` and `.albumfs/errors` show, and whether the
    /// library is available, to the status and to the filesystem (whose reads of an unavailable
    /// library answer EIO): set together, so a reader that sees `unavailable` sees why too.
    func show(_ report: ScanReport) {
        fs.setLibraryAvailable(onQueue.availability.isAvailable)
        let notShown = state.notShown(scanner)
        statusBox.withLock { s in
            s.photos = report.photos.count
            s.filesSeen = report.filesSeen
            (s.notShown, s.imagesNotShown) = notShown
            s.notShown += onQueue.passedOver
            s.problems = report.problems
            s.libraryAvailable = onQueue.availability.isAvailable
        }
    }
}
