import AlbumCore

/// How the mount follows its library: the views it shows and when it scans
/// (`LibraryCoordinator`, `ChangeFollower`).
public struct CoordinatorOptions: Sendable {
    public var thumbnailBoxes: [ThumbnailBox]
    /// Seconds between periodic rescans (the safety net under inotify, and all there is on
    /// network storage).
    public var rescanInterval: Double
    /// Seconds between periodic rescans that list every folder; those between take folders
    /// whose times are unchanged as they were (`FolderTimes`). 0: every one lists every folder.
    public var fullRescanInterval: Double = 3600
    /// Quiet time that ends a burst of changes.
    public var debounce: Double = 0.25
    /// A file is taken once it was closed after writing (IN_CLOSE_WRITE) with no write since,
    /// or else once its mtime and ctime are this many seconds old.
    public var settle: Double = 1.0
    public var maxWatches: Int?
    /// The top-level views shown (`-o views=`).
    public var views = ShownViews.all
    /// What hashes stills for `duplicates/similar/` (nil: no photo is hashed; the groups the
    /// index holds are still shown).
    public var perceptualHasher: (any PerceptualHasher)? = nil
    public init(thumbnailBoxes: [ThumbnailBox], rescanInterval: Double, maxWatches: Int?) {
        self.thumbnailBoxes = thumbnailBoxes
        self.rescanInterval = rescanInterval
        self.maxWatches = maxWatches
    }
}
