import AlbumCore
import AlbumMetadata
import FoundationEssentials

extension LibraryCoordinator {
    /// What only the coordinator's queue reads and writes (`onQueue`, which checks that it runs
    /// there): the changes not rescanned yet, what the walks found beside the files, the groups
    /// last shown.
    struct QueueState {
        /// The problems of folders (one that cannot be listed, a name that is not UTF-8) found by the
        /// walks so far: each rescan of a folder replaces those below it.
        var folderProblems: [ScanProblem] = []
        /// What the walks so far passed over (hidden files, links, system folders), kept as
        /// `folderProblems` are: each rescan of a folder replaces what it passed over in the folders
        /// it listed.
        var passedOver: [NotShownFile] = []
        /// How long the last publish took: publishing during a long scan waits a multiple of it.
        var publishSeconds = 0.0
        /// Folders changed since the last rescan (inotify, a file found changed at an open).
        var dirty = Set<String>()
        /// Whether inotify lost events since the last rescan (its queue overflowed): the next one
        /// lists every folder it walks.
        var eventsLost = false
        /// Paths the watcher named since the last rescan (a file gone is looked for among them
        /// first: `ScanRequest.named`), up to `LibraryCoordinator.mostNamed`.
        var named = Set<String>()
        /// Files this rescan found under new paths (their folder renamed or moved): every tree it
        /// publishes gives their photos their old paths' inode numbers.
        var renamed: [FileMove] = []
        /// Files whose last event says they are whole (closed after writing, or renamed into place):
        /// no need to wait for them to settle.
        var wholeFiles = Set<String>()
        /// Whether a rescan of `dirty` is queued (after the debounce).
        var flushScheduled = false
        /// The number of the last change put in `dirty` (the coordinator's `pending` counts
        /// them as reported).
        var absorbedChange = 0
        /// When the first change of the burst being debounced came.
        var burstStart: Date?
        /// When the last scan that listed every folder of the library began.
        var lastFullWalk = Date()
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
}
