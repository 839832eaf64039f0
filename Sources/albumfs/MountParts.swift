import AlbumCore
import AlbumThumbnails

/// The two paths of a mount, checked: the library's folder and where it is mounted.
struct MountPaths: Sendable {
    let source: String
    let mountpoint: String
}

/// The thumbnail parts of a mount: the service that answers `thumbnails/`, the sandboxed
/// processes that decode, the disk cache, and `-o desktop_thumbnails`' writer when on. The
/// filesystem serves them and `.albumfs/status` reports on them.
struct MountThumbnails: Sendable {
    let service: ThumbnailService
    let workers: RenderWorkers
    let cache: ThumbnailCache?
    let desktop: DesktopThumbnails?
}

/// The picks database a mount uses (`UnsavedPicks` when it cannot be used) and its path, named
/// in messages and in `.albumfs/status`.
struct PicksDatabase: Sendable {
    let storage: PickStorage
    let path: String

    /// What `.albumfs/status` says of it: its path, or `none` when it takes no picks.
    var statusName: String { storage.acceptsChanges ? path : "none" }
}
