import AlbumCore
import AlbumMetadata

/// One folder's scan, as asked of `ScanPipeline.start`: the folder ("" the library) and
/// everything below it, where its rows go, and what the walk is to take as it finds it. Sendable:
/// the walk's thread takes it.
public struct ScanRequest: Sendable {
    public var folder: String
    /// Where each batch's rows are saved as soon as it is read.
    public var writer: IndexWriter
    /// Files changed after this may still be being written, and wait (nil: take everything).
    public var settledBefore: Timestamp?
    /// Files known whole whatever their times (closed after writing).
    public var complete: Set<String> = []
    /// Where files new at their path are looked up by their identity
    /// (`ScanPipeline.moveLookup(saving:)`); nil: they are read.
    public var moveLookup: MoveLookup?
    /// Why the folder cannot be scanned now (its disk not mounted): what is known below it is kept.
    public var unavailable: String?
    /// Whether folders whose times are unchanged since the last walk are taken as they were, but
    /// for `mustList` (`FolderTimes`).
    public var skippingUnchanged = false
    public var mustList: Set<String> = []
    /// Paths the watcher named since the last rescan, where files gone are looked for first.
    public var named: Set<String> = []
    /// Each folder the walk enters (absolute path), on the walk's thread.
    public var onFolder: @Sendable (String) -> Void = { _ in }
    /// `(done, total)` header reads, from the reader threads.
    public var progress: (@Sendable (Int, Int) -> Void)?
    /// Read batches the walk may hand on ahead of the merges (`ConcurrentWalk.capacity`).
    public var batchesAhead = ConcurrentWalk.capacity

    public init(folder: String, writer: IndexWriter, moveLookup: MoveLookup?) {
        self.folder = folder
        self.writer = writer
        self.moveLookup = moveLookup
    }
}
