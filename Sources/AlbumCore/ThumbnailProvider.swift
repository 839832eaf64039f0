import AlbumSystem
/// What the views need from the thumbnail service (AlbumThumbnails implements it).
public protocol ThumbnailProvider: Sendable {
    /// The `thumbnails/WxH/` folders to show.
    var boxes: [ThumbnailBox] { get }
    /// The exact size of every thumbnail of this box, known before any is rendered.
    func size(for box: ThumbnailBox) -> Int64
    /// The thumbnail's bytes: from the cache or rendered now, the photo's file opened beneath
    /// `sourceRoot` (the library's folder). Failures are logged by the service.
    func thumbnail(of photo: Photo, sourceRoot: String, box: ThumbnailBox) -> Result<[UInt8], Errno>
}
