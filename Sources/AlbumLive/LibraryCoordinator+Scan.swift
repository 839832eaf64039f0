import AlbumCore
import AlbumMetadata
import AlbumSystem
import AlbumVFS
import Dispatch
import FoundationEssentials

/// The coordinator's scans: each rescan surveys and reads its folders (`LibraryScanner.surveyReading`),
/// merges what it found into `state`, publishes the views and writes the index. All on `queue`.
extension LibraryCoordinator {

    func fullScan(first: Bool) {
        rescan(["" as String], first: first)
    }

    /// What a rescan sets up once for all the folders it walks.
    struct ScanSetup {
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
    struct ScanTally {
        /// What the scan changed, over every folder it walked (its `gone`: the index rows to remove).
        var delta = ScanDelta()
        var deferred: [String] = []
        var reads = 0
        /// Files taken from `state` at new paths, whose index rows are copied once the views
        /// show them: the copying of a big folder's rows takes a core for seconds, which the walk
        /// and the views need first.
        var heldMoves: [FileMove] = []
    }

    /// Rescans folders (recursively): each is surveyed and read, then merged into `state`; then
    /// the views are published and the index written.
    func rescan(_ folders: [String], first: Bool = false) {
        let setup = beginScan(first: first)
        let folderProblemsBefore = folderProblems
        var tally = ScanTally()
        renamed = []
        defer { renamed = [] }
        for folder in folders {
            let (survey, reads) = surveyAndRead(folder, setup, heldMoves: &tally.heldMoves)
            merge(survey, of: folder, reads: reads, into: &tally)
        }
        finishScan(setup, tally, changedProblems: folderProblems != folderProblemsBefore)
    }

    /// The status says a scan runs; the settle edge, the index writer and the lookup of files
    /// known elsewhere are made.
    func beginScan(first: Bool) -> ScanSetup {
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
    /// Returns the survey and what was read (`MergeQueue`: the paths read, when tracked, and
    /// which were new and which known before).
    func surveyAndRead(_ folder: String, _ setup: ScanSetup,
                               heldMoves: inout [FileMove]) -> (LibraryScanner.Survey, MergeQueue) {
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
        return (survey, merge)
    }

    /// Merges a folder's survey into `state`: files moved in, files gone, the folder's problems;
    /// what changed goes to the tally's delta.
    func merge(_ survey: LibraryScanner.Survey, of folder: String, reads: MergeQueue, into tally: inout ScanTally) {
        let (readPaths, trackReads) = (reads.readPaths, reads.trackReads)
        tally.delta.added += reads.added
        tally.delta.changed += reads.changed
        tally.delta.moved += survey.moved.map(\.move)
        tally.reads += survey.toRead.count
        // Files found by their identity under a new path whose old path in this folder the walk
        // found nothing at (a folder renamed) take their old entries' place; the others are
        // put below, once the files gone are dropped.
        var movedInPlace = movedAway(survey, in: folder, readPaths: readPaths)
        for i in movedInPlace.indices where movedInPlace[i] {
            movedInPlace[i] = state.move(from: survey.moved[i].from, survey.moved[i].file, photo: survey.moved[i].photo)
            if movedInPlace[i] { tally.delta.gone.append(survey.moved[i].from) }
        }
        // Everything below the folder is replaced by what the scan found, except files still
        // being written, which keep their last settled version until they settle.
        let deferredKnown = survey.deferred.filter { state.knows($0) }.count
        let movedHereNew = survey.moved.indices.count { !movedInPlace[$0] && !state.knows(survey.moved[$0].file.relativePath) }
        let nothingGone = !trackReads
            || (folder.isEmpty && state.fileCount + movedHereNew == survey.reused.count + survey.moved.count + survey.toRead.count + deferredKnown)
        if !nothingGone {
            // (What `albumfs index` finds gone, found the same way: `ScanDelta`.)
            let gone = ScanDelta.gone(state.paths, under: folder, kept: ScanDelta.kept(survey, read: readPaths), unlisted: survey.unlisted)
            for path in gone { state.drop(path) }
            tally.delta.gone += gone
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
    func finishScan(_ setup: ScanSetup, _ tally: ScanTally, changedProblems: Bool) {
        // The views do not need the index: build them while the writer catches up. A rescan that
        // changed nothing (a remount's check of an unchanged library, most periodic rescans)
        // leaves the tree as it is: rebuilding a big library's views takes both cores a while.
        // (On a remount, the tree built from the index is this very tree.)
        let report: ScanReport
        let unchanged = tally.reads == 0 && tally.delta.moved.isEmpty && tally.delta.gone.isEmpty && !changedProblems
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
            s.lastScanChanges = tally.delta.summary
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
    func writeIndex(_ setup: ScanSetup, _ tally: ScanTally) {
        setup.writer.save(moves: tally.heldMoves)
        scanWriter.withLock { $0 = nil }
        if setup.holds {
            setup.writer.finishLater(removing: tally.delta.gone) { [self] outcome in
                statusBox.withLock { $0.indexWriteFailure = outcome.failure(after: $0.indexWriteFailure) }
                // (The evidence held for the index is freed only now.)
                HeapTuning.trim()
            }
        } else {
            let outcome = setup.writer.finish(removing: tally.delta.gone)
            statusBox.withLock { $0.indexWriteFailure = outcome.failure(after: $0.indexWriteFailure) }
        }
    }

    /// Files still being written: look again once they can have settled (a change still pending
    /// until then, as `changes_pending` says).
    func lookAgainLater(at deferred: [String]) {
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
    func noteAvailability(listed: Bool) {
        availability.note(listed: listed, why: folderProblems.first { $0.relativePath == "." }?.message ?? "cannot list folder")
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
    func movedAway(_ survey: LibraryScanner.Survey, in folder: String, readPaths: Set<String>) -> [Bool] {
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
    func mergeBatches(_ q: inout MergeQueue, walkDone: Bool) {
        if walkDone {
            state.reserve(more: q.unmerged)
        } else {
            state.expect(atLeast: state.fileCount + q.unmerged)
        }
        while q.merged < q.batches.count, walkDone || q.batches[q.merged].isComplete {
            for read in q.batches[q.merged].take() {
                if state.knows(read.file.relativePath) { q.changed.append(read.file.relativePath) } else { q.added.append(read.file.relativePath) }
                state.put(read.file, photo: read.photo)
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
    func publish(complete: Bool = true) -> ScanReport {
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
    func show(_ report: ScanReport) {
        fs.setLibraryAvailable(availability.isAvailable)
        statusBox.withLock { s in
            s.photos = report.photos.count
            s.filesSeen = report.filesSeen
            s.imagesNotShown = state.notShownCount
            s.problems = report.problems
            s.libraryAvailable = availability.isAvailable
        }
    }
}
