import AlbumCore
import AlbumSystem
import Dispatch
import FoundationEssentials

/// Turns what the watcher reports (inotify, a file found changed at an open) and the clock into
/// rescans (`LibraryScans.Request`: folders, those to list whatever their times, paths named)
/// that run on the coordinator's queue: bursts of changes debounced, files still being written
/// looked at again once they can have settled, and a periodic rescan as the safety net.
///
/// (`@unchecked Sendable`: what it gathered since the last rescan is read and written only on
/// `queue`, through `onQueue`, which checks it; the watcher is a `Locked` value, which the main
/// thread stops.)
final class ChangeFollower: @unchecked Sendable {
    /// What only the coordinator's queue reads and writes (`onQueue`, which checks that it runs
    /// there): the changes not rescanned yet.
    struct State {
        /// Folders changed since the last rescan (inotify, a file found changed at an open).
        var dirty = Set<String>()
        /// Whether inotify lost events since the last rescan (its queue overflowed): the next one
        /// lists every folder it walks.
        var eventsLost = false
        /// Paths the watcher named since the last rescan (a file gone is looked for among them
        /// first: `ScanRequest.named`), up to `ChangeFollower.mostNamed`.
        var named = Set<String>()
        /// Files whose last event says they are whole (closed after writing, or renamed into place):
        /// no need to wait for them to settle.
        var wholeFiles = Set<String>()
        /// Whether a rescan of `dirty` is queued (after the debounce).
        var flushScheduled = false
        /// The number of the last change put in `dirty` (`pending` counts them as reported).
        var absorbedChange = 0
        /// When the first change of the burst being debounced came.
        var burstStart: Date?
        /// When the last scan that listed every folder of the library began.
        var lastFullWalk = Date()
    }

    /// Paths kept in `State.named` at most.
    static let mostNamed = 65_536
    let root: String
    let options: CoordinatorOptions
    let queue: DispatchQueue
    /// Changes seen in SOURCE that the published tree may not show yet.
    let pending: PendingChanges
    let scans: LibraryScans
    /// Watches the library's folders; set once on the queue by `startWatching`, ended by `stop`
    /// (the main thread).
    let watcher = Locked<FolderWatcher?>(nil)
    /// `State`, each access checked to run on the coordinator's queue.
    var onQueue: QueueConfined<State>

    init(root: String, options: CoordinatorOptions, queue: DispatchQueue, pending: PendingChanges, scans: LibraryScans) {
        self.root = root
        self.options = options
        self.queue = queue
        self.pending = pending
        self.scans = scans
        onQueue = QueueConfined(State(), on: queue)
    }

    /// Starts the watcher (on the queue): nothing watches when inotify cannot be had, and the
    /// periodic rescan is all there is.
    func startWatching(warn: @escaping @Sendable (String) -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        let watcher = FolderWatcher(maxWatches: options.maxWatches, onChange: { [weak self] path, entries in self?.changed(path, entries) },
                                    onMountsChanged: { [weak self] in self?.mountsChanged() }, warn: warn)
        self.watcher.withLock { $0 = watcher }
        watcher?.start()
    }

    func stop() {
        watcher.withLock { $0 }?.stop()
    }

    /// The first scan, of the whole library, every folder listed; then the periodic rescans.
    func firstScan() {
        run(LibraryScans.Request(folders: [""], first: true))
    }

    /// Called by the watcher (any thread) with the absolute path of a folder that changed ("":
    /// events were lost, the library is to be walked).
    func changed(_ absolutePath: String, _ entries: [(name: String, complete: Bool)]) {
        let lost = absolutePath.isEmpty
        let relative = absolutePath == root ? "" : absolutePath.hasPrefix(root + "/") ? String(absolutePath.dropFirst(root.count + 1)) : ""
        // Counted at once: an `open` of a photo whose file moved waits for the tree that shows it.
        let change = pending.report()
        queue.async { [self] in
            onQueue.absorbedChange = max(onQueue.absorbedChange, change)
            if lost { onQueue.eventsLost = true }
            for entry in entries {
                let path = relative.isEmpty ? entry.name : relative + "/" + entry.name
                if entry.complete { onQueue.wholeFiles.insert(path) } else { onQueue.wholeFiles.remove(path) }
                if onQueue.named.count < Self.mostNamed { onQueue.named.insert(path) }
            }
            onQueue.dirty.insert(relative)
            if onQueue.burstStart == nil { onQueue.burstStart = Date() }
            guard !onQueue.flushScheduled else { return }
            onQueue.flushScheduled = true
            queue.asyncAfter(deadline: .now() + options.debounce) { [self] in
                onQueue.flushScheduled = false
                flush()
            }
        }
    }

    /// A disk was mounted or unmounted somewhere: an unavailable library may be back (inotify
    /// cannot tell: the folder under a new mount is untouched). An available one is left alone;
    /// its own disk going away shows through inotify (IN_UNMOUNT).
    func mountsChanged() {
        queue.async { [self] in
            guard !scans.publisher.libraryAvailable else { return }
            changed(root, [])
        }
    }

    /// Rescans the dirty folders, outermost only (a folder inside another dirty one is covered).
    /// Below them, a folder whose times are unchanged since the last walk is taken as it was
    /// (`FolderTimes`) unless inotify named it too, as long as inotify names every change: a
    /// folder renamed is an event of its parent, whose other folders are not walked again for it.
    func flush() {
        guard !onQueue.dirty.isEmpty else { return }
        let folders = onQueue.dirty.sorted()
        var outermost: [String] = []
        for f in folders where !outermost.contains(where: { f.isWithin(folder: $0) }) {
            outermost.append(f)
        }
        let mustList = eventsTrusted ? onQueue.dirty : nil
        onQueue.dirty.removeAll()
        onQueue.eventsLost = false
        onQueue.burstStart = nil
        let covered = onQueue.absorbedChange
        run(LibraryScans.Request(folders: outermost, mustList: mustList, named: takeNamed()))
        pending.shown(through: covered)
    }

    /// Whether the folders inotify named since the last rescan are every folder that changed:
    /// every folder is watched (not at the watch limit), no event was lost (the kernel's queue
    /// overflowed) and folder times are trusted at all (`-o full_rescan=0` says they are not).
    var eventsTrusted: Bool {
        guard let watcher = watcher.withLock({ $0 }), !watcher.isAtLimit, !onQueue.eventsLost else { return false }
        return options.fullRescanInterval != 0
    }

    /// The paths named since the last rescan, forgotten here.
    func takeNamed() -> Set<String> {
        defer { onQueue.named = [] }
        return onQueue.named
    }

    func schedulePeriodicRescan() {
        queue.asyncAfter(deadline: .now() + options.rescanInterval) { [self] in
            periodicRescan()
            schedulePeriodicRescan()
        }
    }

    /// The whole library walked again. Folders whose times are unchanged since the last walk are
    /// taken as they were, but those inotify named since (a file in them rewritten in place
    /// leaves their times as they were); every `fullRescanInterval` every folder is listed.
    func periodicRescan() {
        let full = options.fullRescanInterval == 0 || Date().timeIntervalSince(onQueue.lastFullWalk) >= options.fullRescanInterval
        let mustList = onQueue.dirty
        onQueue.dirty.removeAll()
        onQueue.burstStart = nil
        let covered = onQueue.absorbedChange
        run(LibraryScans.Request(folders: [""], mustList: full ? nil : mustList, named: takeNamed()))
        pending.shown(through: covered)
    }

    /// Runs a rescan on the queue with the files known whole and the watcher; takes back what it
    /// leaves to follow: the whole files not found yet, those still being written.
    func run(_ request: LibraryScans.Request) {
        var request = request
        request.complete = onQueue.wholeFiles
        request.watcher = watcher.withLock { $0 }
        let outcome = scans.rescan(request)
        if request.isWhole && request.mustList == nil { onQueue.lastFullWalk = outcome.started }
        onQueue.wholeFiles = outcome.complete
        lookAgainLater(at: outcome.deferred)
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
}
