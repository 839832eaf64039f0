import CRaw

extension ThumbnailRenderer {
    /// A camera RAW (LibRaw, in the render worker): its embedded preview when it covers the box
    /// (a JPEG decoded by albumfs's JPEG path, shrunk in the DCT; a bitmap taken as RGB), else
    /// the raw data decoded at half size. Either is turned upright by the RAW's own orientation.
    /// Sizes are checked against the limits before anything is decoded, and what LibRaw makes
    /// against what it said it would make.
    /// The preview is passed over once it failed to decode (`target.previews` false).
    func rawDecoding(_ original: Original, for target: DecodeTarget) throws(ThumbnailError) -> Decoding {
        let (bw, bh) = (target.boxWidth, target.boxHeight)
        guard original.count <= min(maxFileBytes, memory.limit) else {
            throw ThumbnailError("the original is \(original.count) bytes, over the \(min(maxFileBytes, memory.limit))-byte limit")
        }
        let raw = try RawImage(try original.all(), maxPixels: maxPixels, memoryLimit: memory.limit)
        let o = raw.orientation
        // (The box as the image is stored: the preview's DCT scale is chosen for it.)
        let (sw, sh) = Orientation.storedSize(width: bw, height: bh, orientation: o)
        let plan = Plan(sourceSize: (raw.width, raw.height), dctScale: (1, 1), decodedSize: (0, 0), preview: nil)
        if target.previews, let found = raw.preview(), let preview = try rawPreviewDecoding(raw, found, original: original, boxWidth: sw, boxHeight: sh, plan: plan) {
            return preview
        }
        let (w, h) = ((raw.width + 1) / 2, (raw.height + 1) / 2)
        return Decoding(decode: { () throws(ThumbnailError) in
                            (DecodedImage(whole: Orientation.apply(o, to: try raw.halfSize())), (1, 2))
                        },
                        // The file twice (its copy LibRaw reads), the sensor's 16-bit values,
                        // LibRaw's image (four 16-bit values a pixel), the RGB it makes, turned.
                        need: original.count * 2 + raw.rawPixels * 2 + w * h * (8 + 3 + 3),
                        what: "a \(raw.width)x\(raw.height) RAW", plan: plan, profile: nil)
    }

    /// The decoding of a RAW's embedded preview, or nil when it is too small for the box (the
    /// raw data is decoded then).
    private func rawPreviewDecoding(_ raw: RawImage, _ found: (format: LibRaw_thumbnail_formats, width: Int, height: Int, bytes: Int),
                                    original: Original, boxWidth sw: Int, boxHeight sh: Int, plan: Plan) throws(ThumbnailError) -> Decoding? {
        let o = raw.orientation
        let covers = { (w: Int, h: Int) in w > 0 && h > 0 && max(Double(sw) / Double(w), Double(sh) / Double(h)) <= 1 }
        // (LibRaw knows a bitmap's size before making it; a JPEG's is in the JPEG.)
        if found.width > 0, found.height > 0, !covers(found.width, found.height) { return nil }
        guard found.bytes <= memory.limit else { throw ThumbnailError("RAW: a preview of \(found.bytes) bytes, over the limit") }
        let made = try raw.previewImage()
        var plan = plan
        if made.isBitmap {
            guard covers(made.width, made.height) else { return nil }
            guard made.width * made.height <= maxPixels else { throw ThumbnailError("RAW: a preview over the pixel limit") }
            let image = try made.rgb()
            plan.preview = (image.width, image.height)
            return Decoding(decode: { () throws(ThumbnailError) in (DecodedImage(whole: Orientation.apply(o, to: image)), (1, 1)) },
                            need: original.count * 2 + image.pixels.count * 2, what: "a \(image.width)x\(image.height) RAW preview",
                            plan: plan, profile: nil)
        }
        let jpeg = try Original(bytes: made.bytes).jpeg()
        guard covers(jpeg.width, jpeg.height) else { return nil }
        guard jpeg.width * jpeg.height <= maxPixels else {
            throw ThumbnailError("RAW: a JPEG preview of \(jpeg.width)x\(jpeg.height) is over the \(maxPixels)-pixel limit")
        }
        let factor = Self.dctFactor(width: jpeg.width, height: jpeg.height, boxWidth: sw, boxHeight: sh)
        let limit = memory.limit
        plan.preview = (jpeg.width, jpeg.height)
        return Decoding(decode: { () throws(ThumbnailError) in
                            let decoded = try jpeg.decode(scale: factor, memoryLimit: limit, whole: true)
                            return (DecodedImage(whole: Orientation.apply(o, to: decoded.image)), factor)
                        },
                        need: original.count * 2 + found.bytes + jpeg.decodingBytes(scale: factor),
                        what: "a \(jpeg.width)x\(jpeg.height) RAW's JPEG preview", plan: plan, profile: nil)
    }
}
