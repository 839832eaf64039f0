import AlbumCore
import AlbumSystem

/// An original open for a render: its descriptor (the caller's, open while the render runs), its
/// size and what the scan found it to be.
public struct SourceImage: Sendable {
    public let fd: Int32
    public let size: Int
    public let format: ImageFormat
    public let orientation: Int

    public init(fd: Int32, size: Int, format: ImageFormat, orientation: Int) {
        self.fd = fd
        self.size = size
        self.format = format
        self.orientation = orientation
    }
}

extension SourceImage {
    /// `photo`'s original, opened.
    init(_ original: OpenedSource, _ photo: Photo) {
        self.init(fd: original.fd, size: original.size, format: photo.format, orientation: photo.orientation)
    }
}

/// A thumbnail's JPEG bytes, and how it was made (the debug log's words).
public struct RenderedThumbnail: Sendable {
    public let bytes: [UInt8]
    public let plan: String
}

/// What turns originals into thumbnails: `ThumbnailRenderer` in the calling process (tests, the
/// worker itself), or `RenderWorkers`, which hands each render to a sandboxed worker process.
public protocol ThumbnailRendering: Sendable {
    /// The exact-size JPEG of `source` in `box` (`thumbnails/WxH/`).
    func thumbnail(_ source: SourceImage, box: ThumbnailBox) throws(ThumbnailError) -> RenderedThumbnail
    /// `source` upright, fitting a `side` square, never enlarged (desktop thumbnails).
    func fitting(_ source: SourceImage, side: Int) throws(ThumbnailError) -> RGBImage
    /// `source`'s perceptual hash (`SimilarGroups.dHash` of its picture upright: similar photos).
    func perceptualHash(_ source: SourceImage) throws(ThumbnailError) -> UInt64
    /// Gets ready to render, in the background (returns at once).
    func warmUp()
}

extension ThumbnailRendering {
    public func warmUp() {}
}

extension ThumbnailRenderer: ThumbnailRendering {
    public func thumbnail(_ source: SourceImage, box: ThumbnailBox) throws(ThumbnailError) -> RenderedThumbnail {
        let (bytes, plan) = try renderWithPlan(file: source.fd, size: source.size, format: source.format,
                                               orientation: source.orientation, box: box)
        return RenderedThumbnail(bytes: bytes, plan: plan.description)
    }

    public func fitting(_ source: SourceImage, side: Int) throws(ThumbnailError) -> RGBImage {
        try fitting(file: source.fd, size: source.size, format: source.format, orientation: source.orientation, side: side)
    }
}
