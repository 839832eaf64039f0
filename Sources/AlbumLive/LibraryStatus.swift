import AlbumCore
import AlbumMetadata
import AlbumSystem

/// What `.albumfs/status` reports about the library.
public struct LibraryStatus: Sendable {
    public var state = "loading"
    public var photos = 0
    public var filesSeen = 0
    /// Images in a format not shown (HEIF with `-o heif=off`).
    public var imagesNotShown = 0
    /// Every file and folder under the library's folder that no view shows, with why, in no
    /// order (sorted when `.albumfs/not-shown` is read: the status needs only their count).
    public var notShown: [NotShownFile] = []
    public var problems: [ScanProblem] = []
    /// Headers read since the mount (zero on a remount of an unchanged library).
    public var headerReads = 0
    public var progressDone = 0
    public var progressTotal = 0
    public var lastScanSeconds = 0.0
    /// What the last scan changed (`ScanDelta.summary`).
    public var lastScanChanges = "none yet"
    /// Folders the last scan listed, and took as they were (their times unchanged).
    public var lastScanFolders = (listed: 0, unchanged: 0)
    public var scans = 0
    public var watchedFolders = 0
    public var watchLimitReached = false
    /// False while the library's own folder cannot be listed (the views keep what they showed).
    public var libraryAvailable = true
    /// Why the index could not be written (its disk full), or nil: set by a scan whose writing
    /// failed, cleared by one that wrote (`IndexWriter.Outcome.failure(after:)`).
    public var indexWriteFailure: Errno?
    /// Files read whose rows are not in the index yet (a first scan writes its rows once its
    /// views are published: `IndexWriter.Holding`).
    public var indexPending = 0
    /// `duplicates/`'s hashing: `off` (the view not shown), `waiting for the scan`,
    /// `hashing N/M` (files read of those to read in this step), `done`.
    public var duplicates = "off"
    /// Groups of files with the same bytes, as last found.
    public var duplicateGroups = 0
    /// Files read for a content hash since the mount (`DuplicateFinder.filesHashed`).
    public var duplicateFilesHashed = 0
    /// `duplicates/similar/`'s hash pass: `off` (the view not shown), `waiting for the scan`,
    /// `hashing N/M` (stills hashed of those to hash in this pass), `done` (its groups shown).
    public var similar = "off"
    /// Stills hashed for similar photos since the mount (`SimilarFinder.filesHashed`).
    public var similarHashed = 0
    /// Stills waiting for their hash in the pass under way (`SimilarFinder.pending`).
    public var similarPending = 0
    /// Groups of similar photos, as last found.
    public var similarGroups = 0
    /// Plain pictures the last search left out of similar photos (`SimilarFinder.plain`).
    public var similarPlain = PlainPictures()
    public init() {}
}
