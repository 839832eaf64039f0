import AlbumCore

/// decode → shrink on load → area resample → centre crop → orientation → fixed-size JPEG.
///
/// Stateless and thread-safe: each call makes its own TurboJPEG handles.
public struct ThumbnailRenderer: Sendable {
    /// Bump when the pipeline's output changes: it is part of every cache key.
    /// (2: 16-bit PNGs without a gamma chunk read as sRGB, no longer as linear light.)
    public static let pipelineVersion = 2
    /// Images with more pixels than this are refused (decompression bombs).
    public var maxPixels: Int

    /// Files larger than this are not read into memory at all.
    public var maxFileBytes: Int { max(64 << 20, maxPixels * 4) }

    /// PNGs with more pixels than this are shrunk while they are decoded (`PNGDecoder.decodeShrinking`).
    var shrinkPNGAbovePixels = PNGDecoder.shrinkWhileDecodingAbove

    public init(maxPixels: Int = 250_000_000) { self.maxPixels = maxPixels }

    /// The decisions taken for one render, for the debug log.
    public struct Plan: Sendable, CustomStringConvertible {
        public var sourceSize: (Int, Int)
        public var dctScale: (Int, Int)
        public var decodedSize: (Int, Int)
        /// The embedded preview used instead of the full image (its size), if any.
        public var preview: (Int, Int)?
        public var description: String {
            let from = preview.map { " from its \($0.0)x\($0.1) embedded preview" } ?? ""
            return "\(sourceSize.0)x\(sourceSize.1)\(from) decoded at \(dctScale.0)/\(dctScale.1) → \(decodedSize.0)x\(decodedSize.1)"
        }
    }

    public func render(_ data: [UInt8], format: ImageFormat, orientation: Int, box: ThumbnailBox) throws(ThumbnailError) -> [UInt8] {
        try renderWithPlan(data, format: format, orientation: orientation, box: box).bytes
    }

    /// As `render`, also saying how the image was decoded (for the debug log).
    public func renderWithPlan(_ data: [UInt8], format: ImageFormat, orientation: Int, box: ThumbnailBox)
        throws(ThumbnailError) -> (bytes: [UInt8], plan: Plan) {
        let o = (1...8).contains(orientation) ? orientation : 1
        // Work in stored orientation: the box rotated back, so crop and scale happen on fewer pixels.
        let (bw, bh) = Orientation.storedSize(width: box.width, height: box.height, orientation: o)
        let decoded: RGBImage
        let plan: Plan
        switch format {
        case .jpeg:
            let decoder = try JPEGDecoder()
            let header = try decoder.header(data)
            guard header.width * header.height <= maxPixels else {
                throw ThumbnailError("JPEG of \(header.width)x\(header.height) is over the \(maxPixels)-pixel limit")
            }
            // A preview that still leaves 2x the box, with the main image's shape, costs a fraction.
            let preview = Self.usablePreview(data, main: header, boxWidth: bw, boxHeight: bh, decoder: decoder)
            let (source, sourceHeader) = preview.map { (Array(data[$0.range]), $0.header) } ?? (data, header)
            let factor = Self.dctFactor(width: sourceHeader.width, height: sourceHeader.height, boxWidth: bw, boxHeight: bh)
            let w = JPEGDecoder.scaled(sourceHeader.width, factor), h = JPEGDecoder.scaled(sourceHeader.height, factor)
            decoded = try decoder.decode(source, header: sourceHeader, width: w, height: h)
            plan = Plan(sourceSize: (header.width, header.height), dctScale: factor, decodedSize: (w, h),
                        preview: preview.map { ($0.header.width, $0.header.height) })
        case .png:
            // A huge PNG is shrunk as it is decoded, to at least twice the box each way (the JPEG
            // rule above), and so is an interlaced one (`PNGDecoder.isInterlaced`); others are
            // decoded whole, as the shrink would save little.
            var scale = (1, 1)
            // (A header's sides are any 32-bit numbers until libpng checks them: multiplied with care.)
            if let size = PNGDecoder.size(data), size.width.multipliedReportingOverflow(by: size.height).overflow
                || size.width * size.height > shrinkPNGAbovePixels || PNGDecoder.isInterlaced(data),
               let shrunk = try PNGDecoder.decodeShrinking(data, maxPixels: maxPixels, minWidth: 2 * bw, minHeight: 2 * bh) {
                (decoded, scale) = (shrunk.image, (1, shrunk.factor))
            } else {
                decoded = try PNGDecoder.decode(data, maxPixels: maxPixels)
            }
            let source = PNGDecoder.size(data) ?? (decoded.width, decoded.height)
            plan = Plan(sourceSize: source, dctScale: scale, decodedSize: (decoded.width, decoded.height), preview: nil)
        }
        let cropped = Resampler.coverAndCrop(decoded, width: bw, height: bh)
        let upright = Orientation.apply(o, to: cropped)
        let bytes = try FixedSizeJPEG.encode(upright, size: FixedSizeJPEG.size(for: box.width, box.height), encoder: try JPEGEncoder())
        return (bytes, plan)
    }

    /// The smallest embedded preview (MPF image or EXIF thumbnail) with the main image's aspect
    /// ratio (within 1%) that still holds at least twice the pixels the box needs each way.
    static func usablePreview(_ data: [UInt8], main: JPEGDecoder.Header, boxWidth: Int, boxHeight: Int,
                              decoder: JPEGDecoder) -> (range: Range<Int>, header: JPEGDecoder.Header)? {
        let aspect = Double(main.width) / Double(main.height)
        var best: (range: Range<Int>, header: JPEGDecoder.Header)?
        for range in EmbeddedPreviews.find(in: data) {
            guard let h = try? decoder.header(Array(data[range])), h.width < main.width else { continue }
            guard abs(Double(h.width) / Double(h.height) / aspect - 1) < 0.01 else { continue }
            let cover = max(Double(boxWidth) / Double(h.width), Double(boxHeight) / Double(h.height))
            guard cover <= 0.5 else { continue }
            if best == nil || h.width < best!.header.width { best = (range, h) }
        }
        return best
    }

    /// The largest DCT reduction that still leaves at least twice the pixels the box needs in
    /// both directions, so the area filter has real pixels to average (libvips' jpegshrink rule).
    static func dctFactor(width: Int, height: Int, boxWidth: Int, boxHeight: Int) -> (Int, Int) {
        let cover = max(Double(boxWidth) / Double(width), Double(boxHeight) / Double(height))
        let candidates = JPEGDecoder.scalingFactors.filter { $0.0 <= $0.1 }
            .sorted { Double($0.0) / Double($0.1) < Double($1.0) / Double($1.1) }
        for f in candidates where Double(f.0) / Double(f.1) >= min(1, 2 * cover) {
            return f
        }
        return (1, 1)
    }
}
