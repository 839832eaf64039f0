import AlbumCore
import AlbumSystem

/// 8-bit RGB pixels, rows top to bottom, no padding.
public struct RGBImage: Sendable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 3)
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A sample with straight alpha `alpha` composited onto white, in sRGB values (as viewers
    /// show it), rounded: the one compositing of every decode path (PNG whole and row by row,
    /// HEIF).
    @inline(__always)
    static func onWhite(_ value: UInt8, alpha a: UInt32) -> UInt32 {
        (UInt32(value) * a + 255 * (255 - a) + 127) / 255
    }
}

/// A rectangle of whole pixels.
public struct PixelRect: Equatable, Sendable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// What a decoder made: the pixels of `rect` of an image `fullWidth` x `fullHeight` large, the
/// whole of it or the part a thumbnail's crop keeps (`CoverCrop`).
struct DecodedImage {
    var image: RGBImage
    /// Where `image` lies in the full image (its width and height are the image's).
    var x = 0
    var y = 0
    var fullWidth: Int
    var fullHeight: Int

    init(whole image: RGBImage) {
        self.image = image
        fullWidth = image.width
        fullHeight = image.height
    }

    init(_ image: RGBImage, at x: Int, _ y: Int, of fullWidth: Int, _ fullHeight: Int) {
        self.image = image
        self.x = x
        self.y = y
        self.fullWidth = fullWidth
        self.fullHeight = fullHeight
    }
}

/// Why a thumbnail could not be made; the FUSE read answers EIO for every case.
public struct ThumbnailError: Error, Equatable, CustomStringConvertible {
    public let description: String
    /// The original could not be opened or read (permissions, I/O): unlike bad content, something
    /// that a chmod or a disk coming back fixes without changing the file, so it is not remembered.
    public let isReadFailure: Bool
    /// The original is not at its path (moved with its folder, or deleted): the caller follows
    /// the move, or says it is gone.
    public let isMissing: Bool
    public init(_ description: String, isReadFailure: Bool = false, isMissing: Bool = false) {
        self.description = description
        self.isReadFailure = isReadFailure || isMissing
        self.isMissing = isMissing
    }

    /// The original could not be opened, examined or read (`what`: "open", "stat", "read").
    static func original(_ what: String, _ errno: Errno) -> ThumbnailError {
        ThumbnailError("cannot \(what) the original: \(errno)", isReadFailure: true, isMissing: what == "open" && errno == .notFound)
    }
}
