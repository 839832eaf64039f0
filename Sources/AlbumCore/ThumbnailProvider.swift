import AlbumSystem
/// What the views need from the thumbnail service (AlbumThumbnails implements it).
public protocol ThumbnailProvider: Sendable {
    /// The `thumbnails/WxH/` folders to show.
    var boxes: [ThumbnailBox] { get }
    /// The exact size of every thumbnail of this box, known before any is rendered.
    func size(for box: ThumbnailBox) -> Int64
    /// The thumbnail's bytes: from the cache or rendered now, the photo's file opened beneath
    /// `sourceRoot` (the library's folder). ENOENT: the file is not at its path (moved or
    /// deleted), which the caller follows or says; any other failure is EIO, logged by the service.
    func thumbnail(of photo: Photo, sourceRoot: String, box: ThumbnailBox) -> Result<[UInt8], Errno>
    /// How many thumbnails are made ahead of a reader reading a folder's in order (0: none).
    var renderAhead: Int { get }
    /// Starts making the thumbnail in the background, if there is room: a reader reading a
    /// folder's thumbnails in order will read it next. Returns at once. (A failure shows at the
    /// read, as without it: the thumbnail is in `unrenderable()` only once a read met it.)
    func prepare(_ photo: Photo, sourceRoot: String, box: ThumbnailBox)
    /// The photos whose thumbnails failed from their content (not a read failure), remembered
    /// until they change: the views list no thumbnail of them any more. Asked when a tree is
    /// published and after a thumbnail's read failed (`TreeView.hiddenThumbnails`), never per lookup.
    func unrenderable() -> [UnrenderablePhoto]
    /// Gets ready to render, in the background: a thumbnails folder was opened, and its reads
    /// follow. Returns at once.
    func warmUp()
}

extension ThumbnailProvider {
    public func warmUp() {}
}

/// A photo whose thumbnail could not be made from its content: its path and identity then.
public struct UnrenderablePhoto: Sendable, Hashable {
    public let relativePath: String
    public let identity: FileIdentity
    /// Its ctime when the scan read it (nil: unknown): one rewritten in place keeps its identity.
    public let changedWhenRead: Timestamp?

    public init(relativePath: String, identity: FileIdentity, changedWhenRead: Timestamp? = nil) {
        self.relativePath = relativePath
        self.identity = identity
        self.changedWhenRead = changedWhenRead
    }
}

/// A thumbnail failure from a photo's content, as the index keeps it between mounts: the photo
/// as it was (path, identity, ctime when read) and why. It holds while the photo is that file.
public struct RecordedThumbnailFailure: Sendable, Hashable {
    public let relativePath: String
    public let identity: FileIdentity
    public let changedWhenRead: Timestamp?
    public let reason: String

    public init(relativePath: String, identity: FileIdentity, changedWhenRead: Timestamp?, reason: String) {
        self.relativePath = relativePath
        self.identity = identity
        self.changedWhenRead = changedWhenRead
        self.reason = reason
    }
}

/// Writes thumbnails where desktop file managers look for them (the freedesktop thumbnail
/// specification), for a folder's photos when it is listed (AlbumThumbnails implements it).
public protocol DesktopThumbnailing: Sendable {
    /// `folder`: the folder's path in the mount (`by-date/2024/2024-05/2024-05-17`); `entries`:
    /// its photos and videos, as listed. Returns at once: the work is the service's. `ready` is
    /// called once, on another thread, when every entry has its `normal` thumbnail (or cannot
    /// have one) or when the service's wait bound has passed, whichever comes first: what a
    /// listing waits for, so that a file manager finds the thumbnails it looks for next.
    func listed(folder: String, entries: PhotoEntries, ready: @escaping @Sendable () -> Void)
    /// After a scan: `plan`'s folders, to have their thumbnails before anybody lists them, as far
    /// as the service's bound allows. Returns at once.
    func fillAhead(_ plan: FillAheadPlan)
}

/// A folder of photos in the mount: its path below the mount point, and what it lists.
public struct MountFolder: Sendable {
    public let path: String
    public let entries: PhotoEntries

    public init(path: String, entries: PhotoEntries) {
        self.path = path
        self.entries = entries
    }
}

/// What desktop thumbnails are made ahead of, in order: the first `firstEntries` of each `flat`
/// folder (in the order file managers sort names: what a first window shows), then the `days`
/// (newest first), then the rest of the flat folders. A flat view lists the whole library in one
/// folder, where a listing's own pass cannot write a thousand thumbnails within its wait bound on
/// a busy machine; a day is small.
public struct FillAheadPlan: Sendable {
    public var flat: [MountFolder]
    public var days: [MountFolder]
    public var firstEntries: Int

    public init(flat: [MountFolder], days: [MountFolder], firstEntries: Int = 1_000) {
        self.flat = flat
        self.days = days
        self.firstEntries = firstEntries
    }
}

extension DesktopThumbnailing {
    /// As `listed(folder:entries:ready:)`, nobody waiting.
    public func listed(folder: String, entries: PhotoEntries) { listed(folder: folder, entries: entries, ready: {}) }
}
