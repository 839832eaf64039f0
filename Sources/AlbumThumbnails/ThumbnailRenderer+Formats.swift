import AlbumCore

/// Each format's decoding of an original to the size a thumbnail needs.
extension ThumbnailRenderer {
    /// How an original is to be decoded and what that takes, worked out from its headers: a
    /// render that would need more memory than it may use is refused before anything is
    /// allocated (`DecodeMemory`). The decoded image lives only until it is cropped.
    struct Decoding {
        let decode: () throws(ThumbnailError) -> Decoded
        /// The bytes the decode takes, and its words for the image in a refusal.
        let need: Int
        let what: String
        var plan: Plan
        /// The original's colour profile (an RGB one: a CMYK JPEG's is for its ink values).
        let profile: [UInt8]?
        /// A HEIF original, opened (for the bytes it read, in the plan).
        var heif: HEIFImage? = nil
    }

    /// A JPEG: the smallest embedded preview that still leaves 2x the box, else the image itself,
    /// shrunk in the DCT (`dctFactor`); when `cropping`, only the rows and columns the centre
    /// crop keeps.
    func jpegDecoding(_ original: Original, for target: DecodeTarget) throws(ThumbnailError) -> Decoding {
        let (bw, bh, cropping) = (target.boxWidth, target.boxHeight, target.cropping)
        let main = try original.jpeg()
        guard main.width * main.height <= maxPixels else {
            throw ThumbnailError("JPEG of \(main.width)x\(main.height) is over the \(maxPixels)-pixel limit")
        }
        let header = try JPEGHeaderSegments(original)
        // A preview that still leaves 2x the box, with the main image's shape, costs a fraction.
        let preview = target.previews ? try Self.usablePreview(original, header: header, main: main, boxWidth: bw, boxHeight: bh, fitting: !cropping) : nil
        let source = preview ?? main
        let factor = Self.dctFactor(width: source.width, height: source.height, boxWidth: bw, boxHeight: bh)
        // (Read before decoding, which lets go of the header. Its EXIF may name Adobe RGB where
        // the camera wrote no profile: that one, then.)
        let profile = main.cmyk ? nil : main.iccProfile()
            ?? header.exif.flatMap { ExifColorSpace.isAdobeRGB($0) ? ColorProfile.adobeRGB1998.bytes : nil }
        let limit = memory.limit
        let whole = preview != nil
        let part = cropping ? { (w: Int, h: Int) in CoverCrop(width: w, height: h, boxWidth: bw, boxHeight: bh).pixels } : nil
        return Decoding(decode: { () throws(ThumbnailError) in
                            let decoded = try source.decode(scale: factor, memoryLimit: limit, whole: whole, part: part)
                            // (Thrown with a preview, the photo itself is decoded instead: `shrunk`.)
                            if whole, PreviewBands.doubtful(decoded.image) {
                                throw ThumbnailError("JPEG: its preview has a black band the photo may not have")
                            }
                            return (decoded, factor)
                        },
                        need: source.decodingBytes(scale: factor),
                        what: "a \(source.width)x\(source.height) \(source.progressive ? "progressive " : "")JPEG",
                        plan: Plan(sourceSize: (main.width, main.height), dctScale: factor, decodedSize: (0, 0),
                                   preview: preview.map { ($0.width, $0.height) }),
                        profile: profile)
    }

    /// A PNG: shrunk as it is decoded (and read: the file is never held either), to at least
    /// twice the box each way (the JPEG rule), when it is huge, interlaced
    /// (`PNGDecoder.isInterlaced`) or `cropping` (then only the rows down to the crop's last are
    /// decoded, and only the crop's pixels kept); else read and decoded whole.
    func pngDecoding(_ original: Original, for target: DecodeTarget) throws(ThumbnailError) -> Decoding {
        let (bw, bh, cropping) = (target.boxWidth, target.boxHeight, target.cropping)
        let header = try original.read(0, 33)
        let size = PNGDecoder.size(header)
        // (A header's sides are any 32-bit numbers until libpng checks them: multiplied with care.)
        let pixels = size.map { $0.width.multipliedReportingOverflow(by: $0.height) }
        let huge = pixels.map { $0.overflow || $0.partialValue > shrinkPNGAbovePixels } == true
        let rows = huge || PNGDecoder.isInterlaced(header) || cropping
        let part = cropping ? { (w: Int, h: Int) in CoverCrop(width: w, height: h, boxWidth: bw, boxHeight: bh).pixels } : nil
        let (maxPixels, maxFileBytes) = (maxPixels, maxFileBytes)
        func shrunk() throws(ThumbnailError) -> Decoded? {
            try PNGDecoder.decodeShrinking(original, maxPixels: maxPixels, minWidth: 2 * bw, minHeight: 2 * bh, part: part)
                .map { ($0.decoded, (1, $0.factor)) }
        }
        let decode = { () throws(ThumbnailError) -> Decoded in
            if rows, let shrunk = try shrunk() { return shrunk }
            guard original.count <= maxFileBytes else {
                throw ThumbnailError("the original is \(original.count) bytes, over the \(maxFileBytes)-byte limit")
            }
            do throws(ThumbnailError) {
                return (DecodedImage(whole: try PNGDecoder.decode(try original.all(), maxPixels: maxPixels)), (1, 1))
            } catch where !rows && PNGDecoder.isChecksumFailure(error) {
                // The simplified API cannot be told to let a wrong CRC pass; the row reader is.
                guard let shrunk = try shrunk() else { throw error }
                return shrunk
            }
        }
        // Row by row: a row and the shrunk image's sums. Whole: the file, RGBA.
        let need = rows ? Self.shrunkPNGBytes(size, boxWidth: bw, boxHeight: bh)
            : original.count + min(pixels?.partialValue ?? 0, Int.max / 8) * 4  // (≤ 32 MP here)
        return Decoding(decode: decode, need: need, what: size.map { "a \($0.width)x\($0.height) PNG" } ?? "a PNG",
                        plan: Plan(sourceSize: size ?? (0, 0), dctScale: (1, 1), decodedSize: (0, 0), preview: nil),
                        profile: PNGDecoder.iccProfile(original))
    }

    /// A WebP: read whole (libwebp decodes from memory), a still shrunk by libwebp as it is
    /// decoded to at least twice the box each way, an animation's first frame at full size.
    func webpDecoding(_ original: Original, for target: DecodeTarget) throws(ThumbnailError) -> Decoding {
        let (bw, bh) = (target.boxWidth, target.boxHeight)
        guard original.count <= min(maxFileBytes, memory.limit) else {
            throw ThumbnailError("the original is \(original.count) bytes, over the \(min(maxFileBytes, memory.limit))-byte limit")
        }
        let data = try original.all()
        let plan = try WebPDecoder.plan(data, maxPixels: maxPixels, minWidth: 2 * bw, minHeight: 2 * bh)
        return Decoding(decode: { () throws(ThumbnailError) in
                            (DecodedImage(whole: try WebPDecoder.decode(data, plan)), (1, plan.factor))
                        },
                        need: data.count + plan.bytes,
                        what: "a \(plan.width)x\(plan.height) \(plan.animated ? "animated " : "")WebP",
                        plan: Plan(sourceSize: (plan.width, plan.height), dctScale: (1, plan.factor), decodedSize: (0, 0), preview: nil),
                        profile: nil)
    }

    /// A GIF: read whole, its first image decoded onto the logical screen the header sizes.
    func gifDecoding(_ original: Original) throws(ThumbnailError) -> Decoding {
        guard original.count <= min(maxFileBytes, memory.limit) else {
            throw ThumbnailError("the original is \(original.count) bytes, over the \(min(maxFileBytes, memory.limit))-byte limit")
        }
        let data = try original.all()
        guard let (w, h) = GIFDecoder.size(data), w > 0, h > 0 else { throw ThumbnailError("not a decodable GIF: no screen size") }
        guard w * h <= maxPixels else { throw ThumbnailError("GIF of \(w)x\(h) is over the \(maxPixels)-pixel limit") }
        return Decoding(decode: { () throws(ThumbnailError) in
                            (DecodedImage(whole: try GIFDecoder.decode(data, width: w, height: h)), (1, 1))
                        },
                        need: data.count + GIFDecoder.bytes(width: w, height: h), what: "a \(w)x\(h) GIF",
                        plan: Plan(sourceSize: (w, h), dctScale: (1, 1), decodedSize: (0, 0), preview: nil), profile: nil)
    }

    /// A TIFF: read whole, its first image decoded by libtiff at the size its IFD0 says.
    func tiffDecoding(_ original: Original) throws(ThumbnailError) -> Decoding {
        guard original.count <= min(maxFileBytes, memory.limit) else {
            throw ThumbnailError("the original is \(original.count) bytes, over the \(min(maxFileBytes, memory.limit))-byte limit")
        }
        let data = try original.all()
        guard let (w, h) = TIFFDecoder.size(data), w > 0, h > 0 else { throw ThumbnailError("not a decodable TIFF: no image size") }
        guard w * h <= maxPixels else { throw ThumbnailError("TIFF of \(w)x\(h) is over the \(maxPixels)-pixel limit") }
        return Decoding(decode: { () throws(ThumbnailError) in
                            (DecodedImage(whole: try TIFFDecoder.decode(data, width: w, height: h)), (1, 1))
                        },
                        // The RGBA raster and the RGB image.
                        need: data.count + w * h * 7, what: "a \(w)x\(h) TIFF",
                        plan: Plan(sourceSize: (w, h), dctScale: (1, 1), decodedSize: (0, 0), preview: nil), profile: nil)
    }

    /// A JPEG XL image: read whole (libjxl decodes from memory), its first frame decoded at full
    /// size (libjxl shrinks nothing on load) and upright, at the size its codestream header says.
    func jxlDecoding(_ original: Original) throws(ThumbnailError) -> Decoding {
        guard original.count <= min(maxFileBytes, memory.limit) else {
            throw ThumbnailError("the original is \(original.count) bytes, over the \(min(maxFileBytes, memory.limit))-byte limit")
        }
        let data = try original.all()
        let plan = try JXLDecoder.plan(data, maxPixels: maxPixels)
        return Decoding(decode: { () throws(ThumbnailError) in (DecodedImage(whole: try JXLDecoder.decode(data, plan)), (1, 1)) },
                        need: data.count + plan.bytes, what: "a \(plan.width)x\(plan.height) JPEG XL image",
                        plan: Plan(sourceSize: (plan.width, plan.height), dctScale: (1, 1), decodedSize: (0, 0), preview: nil), profile: nil)
    }

    /// What shrinking a PNG of `size` while decoding it takes at most: its row (RGBA), each
    /// column's block (16 bytes) and the sums of the whole shrunk image, 12 bytes a pixel. (No product overflows: a side of 2^32 at
    /// most, and a factor of 1 only when the other side is under twice the box.)
    static func shrunkPNGBytes(_ size: (width: Int, height: Int)?, boxWidth bw: Int, boxHeight bh: Int) -> Int {
        guard let (w, h) = size, w > 0, h > 0 else { return 0 }
        let k = max(1, min(w / (2 * bw), h / (2 * bh)))
        return w * (4 + 16) + ((w + k - 1) / k) * ((h + k - 1) / k) * 12
    }

    /// A HEIF image: HEVC has no shrink-on-load, so an embedded thumbnail that covers the box
    /// stands for it; else, when `cropping` a grid image (an iPhone's 4032x3024 is 8x6 tiles of
    /// 512), only the tiles the centre crop keeps are decoded, on every core.
    func heifDecoding(_ original: Original, for target: DecodeTarget) throws(ThumbnailError) -> Decoding {
        let (bw, bh, cropping) = (target.boxWidth, target.boxHeight, target.cropping)
        // (libheif reads the file from memory, which counts towards the render's: one larger than
        // a render may take is refused before a byte is read.)
        guard original.count <= min(maxFileBytes, memory.limit) else {
            throw ThumbnailError("the original is \(original.count) bytes, over the \(min(maxFileBytes, memory.limit))-byte limit")
        }
        let image = try HEIFImage(original)
        guard image.width * image.height <= maxPixels else {
            throw ThumbnailError("HEIF image of \(image.width)x\(image.height) is over the \(maxPixels)-pixel limit")
        }
        let preview = target.previews ? Self.usableThumbnail(image.thumbnails(), main: image, boxWidth: bw, boxHeight: bh) : nil
        let tiled = preview == nil && cropping ? image.tiling() : nil
        let crop = CoverCrop(width: image.width, height: image.height, boxWidth: bw, boxHeight: bh).pixels
        let decode = { () throws(ThumbnailError) -> Decoded in
            try image.load(preview)
            if let tiled { return (try image.decodeTiles(covering: crop, of: tiled), (1, 1)) }
            let decoded = try image.decode(thumbnail: preview)
            // (Thrown with a preview, the primary image is decoded instead: `shrunk`.)
            if preview != nil, PreviewBands.doubtful(decoded) { throw ThumbnailError("HEIF: its thumbnail has a black band the image may not have") }
            return (DecodedImage(whole: decoded), (1, 1))
        }
        let source = preview.map { ($0.width, $0.height) } ?? (image.width, image.height)
        let decoded = tiled.map { $0.span(covering: crop, width: image.width, height: image.height) }.map { ($0.width, $0.height) } ?? source
        // (With a buffer of the file's size, which libheif reads in place.)
        return Decoding(decode: decode, need: original.count + HEIFImage.decodingBytes(width: decoded.0, height: decoded.1),
                        what: "a \(source.0)x\(source.1) HEIF image",
                        plan: Plan(sourceSize: (image.width, image.height), dctScale: (1, 1), decodedSize: (0, 0),
                                   preview: preview.map { ($0.width, $0.height) }),
                        profile: image.iccProfile(), heif: image)
    }

    /// A video: its first keyframe (`VideoPoster`), shrunk by FFmpeg while it covers 2x the box.
    func videoDecoding(_ original: Original, for target: DecodeTarget) throws(ThumbnailError) -> Decoding {
        let (bw, bh) = (target.boxWidth, target.boxHeight)
        let video = try VideoPoster(original, maxPixels: maxPixels, memory: memory.limit)
        return Decoding(decode: { () throws(ThumbnailError) in
                            let (image, scale) = try video.decode(boxWidth: bw, boxHeight: bh)
                            return (DecodedImage(whole: image), scale)
                        },
                        need: video.decodingBytes, what: "a \(video.width)x\(video.height) video",
                        plan: Plan(sourceSize: (video.width, video.height), dctScale: (1, 1), decodedSize: (0, 0), preview: nil),
                        profile: nil)
    }

    /// The smallest embedded preview (MPF image or EXIF thumbnail) with the main image's aspect
    /// ratio (within 1%) that still holds at least twice the pixels the box needs each way, its
    /// header read. (A preview that is no decodable JPEG is passed over.)
    /// - Parameter fitting: the image is to fit the box (a desktop thumbnail), not cover it: the
    ///   preview's longer side is what must hold 2x the box (a camera's 160x120 EXIF thumbnail
    ///   serves a 128 px `normal` one).
    static func usablePreview(_ original: Original, header: JPEGHeaderSegments, main: JPEGStream, boxWidth: Int, boxHeight: Int,
                              fitting: Bool = false) throws(ThumbnailError) -> JPEGStream? {
        let aspect = Double(main.width) / Double(main.height)
        var best: JPEGStream?
        for range in try EmbeddedPreviews.find(in: header, of: original) {
            let preview: JPEGStream
            do throws(ThumbnailError) {
                preview = try original.jpeg(range)
            } catch {
                if error.isReadFailure { throw error }
                continue
            }
            guard preview.width < main.width, abs(Double(preview.width) / Double(preview.height) / aspect - 1) < 0.01 else { continue }
            let scales = (Double(boxWidth) / Double(preview.width), Double(boxHeight) / Double(preview.height))
            guard (fitting ? min(scales.0, scales.1) : max(scales.0, scales.1)) <= 0.5 else { continue }
            if best == nil || preview.width < best!.width { best = preview }
        }
        return best
    }

    /// The smallest of a HEIF image's embedded thumbnails with the main image's aspect ratio
    /// (within 1%) that covers the box without being enlarged: libvips' rule for HEIF (its
    /// `thumbnail` takes the embedded one whenever it shrinks), where JPEG previews must hold 2x
    /// the box (`usablePreview`). Decoding the whole picture is the alternative here, the slowest
    /// decode there is, which a file manager opening a folder of iPhone photos pays for each.
    static func usableThumbnail(_ thumbnails: [HEIFImage.Thumbnail], main: HEIFImage, boxWidth: Int, boxHeight: Int) -> HEIFImage.Thumbnail? {
        let aspect = Double(main.width) / Double(main.height)
        return thumbnails.filter { t in
            t.width > 0 && t.height > 0 && t.width < main.width && abs(Double(t.width) / Double(t.height) / aspect - 1) < 0.01
                && max(Double(boxWidth) / Double(t.width), Double(boxHeight) / Double(t.height)) <= 1
        }.min { $0.width < $1.width }
    }

    /// What the area filter shrinks at least, once the decoder has shrunk what it can (a JPEG's
    /// DCT scaling): chosen by the quality it gives, PSNR against a full-resolution Lanczos
    /// reference, not libvips' fixed 2x. 1.5 takes 1/8 for a 12 MP 4:3 photo in a 200x200 box
    /// (1.875x left), where 2 took 1/4: its PSNR stays above vipsthumbnail's on the same photo
    /// (docs/benchmarks.md), for a fifth less work.
    static let finalShrink = 1.5

    /// The largest DCT reduction that still leaves at least `finalShrink` times the pixels the
    /// box needs in both directions, so the area filter has real pixels to average.
    static func dctFactor(width: Int, height: Int, boxWidth: Int, boxHeight: Int) -> (Int, Int) {
        let cover = max(Double(boxWidth) / Double(width), Double(boxHeight) / Double(height))
        let candidates = JPEGStream.scalingFactors.filter { $0.0 <= $0.1 }
            .sorted { Double($0.0) / Double($0.1) < Double($1.0) / Double($1.1) }
        for f in candidates where Double(f.0) / Double(f.1) >= min(1, finalShrink * cover) {
            return f
        }
        return (1, 1)
    }
}
