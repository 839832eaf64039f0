import AlbumCore

/// decode → shrink on load → area resample → centre crop → orientation → fixed-size JPEG.
///
/// Thread-safe: each call makes its own decoders (libjpeg, libpng) and encoder (TurboJPEG); what
/// decodes may take (`DecodeMemory`) is shared by every call.
public struct ThumbnailRenderer: Sendable {
    /// Bump when the pipeline's output changes: it is part of every cache key, so every
    /// thumbnail is made again, once (what each version changed: the commit that bumped it).
    public static let pipelineVersion = 4
    /// Images with more pixels than this are refused (decompression bombs).
    public var maxPixels: Int

    /// PNG files larger than this are not read into memory at all (a JPEG, or a PNG shrunk as it is
    /// decoded, is never held whole).
    public var maxFileBytes: Int { max(64 << 20, maxPixels * 4) }

    /// PNGs with more pixels than this are shrunk while they are decoded (`PNGDecoder.decodeShrinking`).
    var shrinkPNGAbovePixels = PNGDecoder.shrinkWhileDecodingAbove
    /// What a decode may take, shared by every render of the mount.
    public let memory: DecodeMemory

    public init(maxPixels: Int = 250_000_000, memory: DecodeMemory = DecodeMemory()) {
        self.maxPixels = maxPixels
        self.memory = memory
    }

    /// The decisions taken for one render, for the debug log.
    public struct Plan: Sendable, CustomStringConvertible {
        public var sourceSize: (Int, Int)
        public var dctScale: (Int, Int)
        public var decodedSize: (Int, Int)
        /// The embedded preview used instead of the full image (its size), if any.
        public var preview: (Int, Int)?
        /// The bytes of the original's ICC profile the thumbnail carries (0: none).
        public var profileBytes = 0
        /// The bytes of the original read (HEIF: as much as the image decoded takes; nil: not
        /// counted).
        public var bytesRead: Int?
        public var description: String {
            let from = preview.map { " from its \($0.0)x\($0.1) embedded preview" } ?? ""
            let profile = profileBytes > 0 ? ", its \(profileBytes)-byte ICC profile kept" : ""
            let read = bytesRead.map { ", \($0) bytes read" } ?? ""
            return "\(sourceSize.0)x\(sourceSize.1)\(from) decoded at \(dctScale.0)/\(dctScale.1) → \(decodedSize.0)x\(decodedSize.1)\(profile)\(read)"
        }
    }

    public func render(_ data: [UInt8], format: ImageFormat, orientation: Int, box: ThumbnailBox) throws(ThumbnailError) -> [UInt8] {
        try renderWithPlan(data, format: format, orientation: orientation, box: box).bytes
    }

    /// As `render`, also saying how the image was decoded (for the debug log).
    public func renderWithPlan(_ data: [UInt8], format: ImageFormat, orientation: Int, box: ThumbnailBox)
        throws(ThumbnailError) -> (bytes: [UInt8], plan: Plan) {
        try renderWithPlan(Original(bytes: data), format: format, orientation: orientation, box: box)
    }

    /// The thumbnail of the original open as `fd` (`size` bytes), read as it is decoded.
    public func renderWithPlan(file fd: Int32, size: Int, format: ImageFormat, orientation: Int, box: ThumbnailBox)
        throws(ThumbnailError) -> (bytes: [UInt8], plan: Plan) {
        try renderWithPlan(Original(fd: fd, size: size), format: format, orientation: orientation, box: box)
    }

    /// The thumbnail of `original` for `box`, and the plan its render followed.
    func renderWithPlan(_ original: Original, format: ImageFormat, orientation: Int, box: ThumbnailBox)
        throws(ThumbnailError) -> (bytes: [UInt8], plan: Plan) {
        let o = (1...8).contains(orientation) && !format.decodesUpright ? orientation : 1
        // Work in stored orientation: the box rotated back, so crop and scale happen on fewer pixels.
        let (bw, bh) = Orientation.storedSize(width: box.width, height: box.height, orientation: o)
        let (cropped, decoding) = try shrunk(original, format: format, for: DecodeTarget(boxWidth: bw, boxHeight: bh, cropping: true)) { decoded in
            Resampler.coverAndCrop(decoded, width: bw, height: bh)
        }
        var plan = decoding.plan
        plan.bytesRead = decoding.heif?.bytesRead
        let upright = Orientation.apply(o, to: cropped)
        let size = FixedSizeJPEG.size(for: box.width, box.height)
        let carried = ColorProfile(decoding.profile, fitting: size)
        plan.profileBytes = carried?.bytes.count ?? 0
        let bytes = try FixedSizeJPEG.encode(upright, size: size, profile: carried, encoder: try JPEGEncoder())
        return (bytes, plan)
    }

    /// The original upright, fitting a `side` square with its shape kept and never enlarged (what
    /// the freedesktop thumbnail specification asks: 128 for `normal`, 256 for `large`).
    func fitting(file fd: Int32, size: Int, format: ImageFormat, orientation: Int, side: Int) throws(ThumbnailError) -> RGBImage {
        let o = (1...8).contains(orientation) && !format.decodesUpright ? orientation : 1
        // Shrunk on load while it covers the side once, not twice as for `thumbnails/`: a file
        // manager's icon is drawn smaller still, and the decode is half the work.
        let half = max(1, side / 2)
        let target = DecodeTarget(boxWidth: half, boxHeight: half, cropping: false)
        let (fitted, _) = try shrunk(Original(fd: fd, size: size), format: format, for: target) { decoded in
            DesktopThumbnails.fit(decoded.image, side: side)
        }
        return Orientation.apply(o, to: fitted)
    }

    /// What a decode is shrunk for: the box it must still cover twice (in stored orientation),
    /// whether only the box's centre crop is wanted, and whether an embedded preview may stand for
    /// the image (false once one failed to decode).
    struct DecodeTarget {
        let boxWidth: Int
        let boxHeight: Int
        let cropping: Bool
        var previews = true
    }

    /// The original decoded (shrunk on load while it covers twice the box; when `cropping`, only
    /// as much of it as the box's centre crop keeps, where the format allows) and then `shape`d,
    /// within what a decode may take; a damaged embedded preview gives way to the photo itself.
    func shrunk(_ original: Original, format: ImageFormat, for target: DecodeTarget,
                shape: (DecodedImage) -> RGBImage) throws(ThumbnailError) -> (RGBImage, Decoding) {
        var decoding: Decoding
        switch format {
        case .jpeg: decoding = try jpegDecoding(original, for: target)
        case .png: decoding = try pngDecoding(original, for: target)
        case .heif: decoding = try heifDecoding(original, for: target)
        case .video: decoding = try videoDecoding(original, for: target)
        case .webp: decoding = try webpDecoding(original, for: target)
        case .gif: decoding = try gifDecoding(original)
        case .tiff: decoding = try tiffDecoding(original)
        case .jxl: decoding = try jxlDecoding(original)
        case .raw: decoding = try rawDecoding(original, for: target)
        }
        do throws(ThumbnailError) {
            let image = try memory.reserving(decoding.need, for: decoding.what) { () throws(ThumbnailError) -> RGBImage in
                let (decoded, scale) = try decoding.decode()
                decoding.plan.dctScale = scale
                decoding.plan.decodedSize = (decoded.image.width, decoded.image.height)
                // (A PNG without a size read.)
                if decoding.plan.sourceSize == (0, 0) { decoding.plan.sourceSize = (decoded.fullWidth, decoded.fullHeight) }
                return shape(decoded)
            }
            return (image, decoding)
        } catch {
            // A preview is a second copy: damaged (its header read, its data not), the photo
            // itself may still be whole. (Nothing to try again when the file could not be read.)
            guard decoding.plan.preview != nil, !error.isReadFailure else { throw error }
            var withoutPreviews = target
            withoutPreviews.previews = false
            return try shrunk(original, format: format, for: withoutPreviews, shape: shape)
        }
    }

    /// What a decode made, and the scale it was made at (a JPEG's DCT scale, a PNG's shrink
    /// factor as 1/k, 1/1 for the rest).
    typealias Decoded = (image: DecodedImage, scale: (Int, Int))
}
