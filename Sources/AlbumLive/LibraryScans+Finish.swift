import AlbumCore
import AlbumMetadata
import AlbumSystem
import FoundationEssentials

/// A rescan's last steps: the views published (or the tree kept), the index written, the status
/// and the log told.
extension LibraryScans {
    /// Publishes what the scan found, writes the index and says the scan is done.
    func finishScan(_ setup: ScanSetup, _ tally: ScanTally, changedProblems: Bool) {
        // The views do not need the index: build them while the writer catches up. A rescan that
        // changed nothing (a remount's check of an unchanged library, most periodic rescans)
        // leaves the tree as it is: rebuilding a big library's views takes both cores a while.
        // (On a remount, the tree built from the index is this very tree.)
        let filesUnchanged = tally.reads == 0 && tally.delta.moved.isEmpty && tally.delta.gone.isEmpty
        // Duplicates are known when the scan ends: their files hashed as its last step.
        let regrouped = setup.first || !filesUnchanged ? publisher.findDuplicates() : false
        if setup.first || !filesUnchanged { publisher.findSimilar() }
        let unchanged = filesUnchanged && !changedProblems && !regrouped
        let snapshotShown = setup.first ? publisher.snapshotShown() : nil
        let keepsTree = unchanged && snapshotShown == nil
        if setup.first && !keepsTree { state.compactPhotos() }
        let report = keepsTree ? publisher.showKeptTree() : publisher.publish()
        if let snapshotShown { publisher.replacedSnapshotTree(unchanged: unchanged, shown: snapshotShown) }
        writeIndex(setup, tally)
        if setup.request.isWhole { publisher.saveViewsOnceWritten(after: indexQueue) }
        let seconds = Date().timeIntervalSince(setup.started)
        let watcher = setup.request.watcher
        publisher.statusBox.withLock { s in
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
        guard setup.first else { return }
        logFirstScan(report, tally, seconds: seconds, unchanged: unchanged)
        publisher.fs.fillDesktopThumbnailsAhead()
        // (Once the scan is done, not at the first live change, which would wait for a pass over
        // every path; the map compacted after the views are shown, which do not need it.)
        queue.async { [self] in
            state.compactMap()
            HeapTuning.trim()
            state.countFolders()
        }
    }

    /// The line a first scan logs, with what a user looks for when an iPhone library seems to
    /// have lost its photos.
    func logFirstScan(_ report: ScanReport, _ tally: ScanTally, seconds: Double, unchanged: Bool) {
        let (notShown, passedOver) = publisher.statusBox.withLock { ($0.imagesNotShown, $0.notShown.count) }
        var hint = notShown == 0 ? "" : "; \(notShown) HEIC/HEIF image\(notShown == 1 ? "" : "s") not shown (-o heif=on shows \(notShown == 1 ? "it" : "them"))"
        if passedOver > 0 { hint += "; \(passedOver) not shown in all (.albumfs/not-shown says why)" }
        log("albumfs: scan done: \(report.photos.count) photos, \(state.fileCount) files, \(tally.reads) read, in \(seconds.fixed(2)) s ("
            + (unchanged ? "nothing changed: the tree stays" : "last tree build \(publisher.onQueue.publishSeconds.fixed(2)) s") + ")" + hint)
    }

    /// The scan's last index writes: the rows of files taken at new paths, the removals, and the
    /// rows a first scan held (written after its views, the heap trimmed after them).
    func writeIndex(_ setup: ScanSetup, _ tally: ScanTally) {
        setup.writer.save(moves: tally.heldMoves)
        scanWriter.withLock { $0 = nil }
        if setup.holds {
            setup.writer.finishLater(removing: tally.delta.gone) { [publisher, index] outcome in
                publisher.statusBox.withLock { $0.indexWriteFailure = outcome.failure(after: $0.indexWriteFailure) }
                // (The evidence held for the index is freed only now.)
                HeapTuning.trim()
                index?.prepareLookups()
            }
        } else {
            let outcome = setup.writer.finish(removing: tally.delta.gone)
            publisher.statusBox.withLock { $0.indexWriteFailure = outcome.failure(after: $0.indexWriteFailure) }
        }
    }
}
