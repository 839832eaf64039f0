import AlbumCore
import AlbumSystem
import CPNG
import CPNGRows

/// PNG decoding through libpng's simplified API, which converts every kind (palette, grayscale,
/// 16-bit, interlaced) to 8-bit sRGB with straight alpha, and reports errors by return value (the
/// classic API's longjmp cannot cross Swift frames). Alpha is composited onto white here, in sRGB
/// values as browsers and viewers do (libpng's own background option blends in linear light,
/// which makes a half-transparent red lighter than any viewer shows it).
enum PNGDecoder {
    /// The corresponding C functions are `png_image_begin_read_from_memory` and `png_image_finish_read`.
    static func decode(_ data: [UInt8], maxPixels: Int) throws(ThumbnailError) -> RGBImage {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        defer { png_image_free(&image) }
        let begun = data.withUnsafeBufferPointer { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard begun != 0 else { throw ThumbnailError("not a decodable PNG: \(message(image))") }
        // A 16-bit PNG with no gAMA or sRGB chunk holds sRGB values, as browsers, ImageMagick and
        // libvips read it; libpng's default takes it for linear light and lifts mid-grey 128 to 186.
        image.flags |= UInt32(PNG_IMAGE_FLAG_16BIT_sRGB)
        let w = Int(image.width), h = Int(image.height)
        guard w > 0, h > 0, w * h <= maxPixels else {
            throw ThumbnailError("PNG of \(w)x\(h) is over the \(maxPixels)-pixel limit")
        }
        // Memory is the cost of a big PNG (a 218 KB file can hold 224 million black pixels):
        // decode straight to RGB when there is no alpha, and composite in place when there is.
        let hasAlpha = image.format & UInt32(PNG_FORMAT_FLAG_ALPHA) != 0
        let channels = hasAlpha ? 4 : 3
        image.format = UInt32(hasAlpha ? PNG_FORMAT_RGB | PNG_FORMAT_FLAG_ALPHA : PNG_FORMAT_RGB)
        var rgb = [UInt8](repeating: 0, count: w * h * channels)
        let done = rgb.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, Int32(w * channels), nil) }
        guard done != 0 else { throw ThumbnailError("PNG decode failed: \(message(image))") }
        if hasAlpha {
            // Pixel i moves from 4i to 3i: never ahead of what is still to be read.
            rgb.withUnsafeMutableBufferPointer { px in
                for i in 0..<(w * h) {
                    let a = UInt32(px[i * 4 + 3])
                    for c in 0..<3 { px[i * 3 + c] = UInt8(RGBImage.onWhite(px[i * 4 + c], alpha: a)) }
                }
            }
            rgb.removeLast(w * h)
        }
        return RGBImage(width: w, height: h, pixels: rgb)
    }

    /// Whether `decode` failed on a chunk's checksum alone (libpng's "IDAT: CRC error"): the row
    /// reader (`decodeShrinking`) uses such chunks as they are.
    static func isChecksumFailure(_ error: ThumbnailError) -> Bool {
        error.description.hasSuffix(": CRC error")
    }

    /// Above this many pixels a PNG is shrunk while it is decoded (`decodeShrinking`): decoded
    /// whole, a small file of huge dimensions takes 3 bytes a pixel, each render at once again.
    static let shrinkWhileDecodingAbove = 32_000_000

    /// Whether the header says Adam7 interlacing. Such PNGs always take the row path
    /// (`decodeShrinking`): the simplified API scrambles 16-bit interlaced ones since Debian's
    /// security fixes of its 16-to-8-bit path (libpng issue #853), and holds any whole.
    static func isInterlaced(_ data: [UInt8]) -> Bool {
        data.count >= 29 && data[28] == 1
    }

    /// Width and height from the header (`IHDR` is always the first chunk), without decoding.
    static func size(_ data: [UInt8]) -> (width: Int, height: Int)? {
        guard data.count >= 24 else { return nil }
        func be32(_ at: Int) -> Int { data[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be32(16), be32(20))
    }

    /// The image shrunk by a whole factor while it is decoded, one row at a time, leaving at least
    /// `minWidth`×`minHeight` pixels (each output pixel the average of its block, alpha composited
    /// onto white first, as `decode` does): memory for one row and the shrunk image's sums only.
    /// An interlaced PNG is read pass by pass, each pass's pixels added to their blocks.
    /// Only the `part` of the shrunk image asked for (given its size; nil: all of it) is kept:
    /// rows below it are never decoded nor read, except in an interlaced PNG, whose every pass
    /// spans the whole image (there, pixels outside are decoded and dropped).
    /// Returns nil for a PNG whose rows libpng's row API would not give as `decode` does (none
    /// known since every gamma is converted there too): the caller decodes it whole.
    static func decodeShrinking(_ data: [UInt8], maxPixels: Int, minWidth: Int, minHeight: Int,
                                part: ((_ width: Int, _ height: Int) -> PixelRect)? = nil) throws(ThumbnailError) -> Shrunk? {
        try decodeShrinking(Original(bytes: data), maxPixels: maxPixels, minWidth: minWidth, minHeight: minHeight, part: part)
    }

    /// What `decodeShrinking` gives: the shrunk image (or its part), and the factor.
    struct Shrunk {
        var decoded: DecodedImage
        var factor: Int
        var image: RGBImage { decoded.image }
    }

    /// As above, the PNG read from the original's file as it is decoded when it has one (the
    /// file is never held whole either).
    static func decodeShrinking(_ original: Original, maxPixels: Int, minWidth: Int, minHeight: Int,
                                part: ((_ width: Int, _ height: Int) -> PixelRect)? = nil) throws(ThumbnailError) -> Shrunk? {
        let wanted = Wanted(minWidth: max(1, minWidth), minHeight: max(1, minHeight), maxPixels: maxPixels, part: part)
        var info = albumfs_png_rows_info()
        var message = [CChar](repeating: 0, count: 256)
        if let fd = original.fd {
            var readErrno: Int32 = 0
            guard let reader = albumfs_png_rows_open_file(fd, &info, &message, message.count, &readErrno) else {
                if readErrno != 0 { throw .original("read", Errno(rawValue: readErrno)) }
                throw ThumbnailError("not a decodable PNG: \(text(message))")
            }
            defer { albumfs_png_rows_close(reader) }
            return try shrinking(reader, info, wanted)
        }
        let data = try original.all()
        let result = data.withUnsafeBufferPointer { buffer in
            Result { () throws(ThumbnailError) -> Shrunk? in
                guard let reader = albumfs_png_rows_open(buffer.baseAddress, buffer.count, &info, &message, message.count) else {
                    throw ThumbnailError("not a decodable PNG: \(text(message))")
                }
                defer { albumfs_png_rows_close(reader) }
                return try shrinking(reader, info, wanted)
            }
        }
        return try result.get()
    }

    /// What a shrinking decode is asked for.
    private struct Wanted {
        let minWidth: Int
        let minHeight: Int
        let maxPixels: Int
        let part: ((_ width: Int, _ height: Int) -> PixelRect)?
    }

    /// The profile of the PNG's `iCCP` chunk, inflated and checked by libpng (header read with
    /// the row reader, from the file when there is one), or nil. The corresponding C function is
    /// `png_get_iCCP`.
    static func iccProfile(_ original: Original) -> [UInt8]? {
        var info = albumfs_png_rows_info()
        var message = [CChar](repeating: 0, count: 256)
        func profile(_ reader: OpaquePointer?) -> [UInt8]? {
            guard let reader else { return nil }
            defer { albumfs_png_rows_close(reader) }
            var data: UnsafePointer<UInt8>?
            var length: UInt32 = 0
            guard albumfs_png_rows_icc_profile(reader, &data, &length) == 1, let data else { return nil }
            return Array(UnsafeBufferPointer(start: data, count: Int(length)))
        }
        if let fd = original.fd {
            var readErrno: Int32 = 0
            return profile(albumfs_png_rows_open_file(fd, &info, &message, message.count, &readErrno))
        }
        guard let data = try? original.all() else { return nil }
        return data.withUnsafeBufferPointer { profile(albumfs_png_rows_open($0.baseAddress, $0.count, &info, &message, message.count)) }
    }

    /// Where each Adam7 pass's pixels sit: first column and row, then the steps between them.
    static let adam7: [(x: Int, y: Int, dx: Int, dy: Int)] = [
        (0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2),
    ]

    /// `decodeShrinking` with a reader whose header is read (`info`).
    private static func shrinking(_ reader: OpaquePointer, _ info: albumfs_png_rows_info, _ wanted: Wanted) throws(ThumbnailError) -> Shrunk? {
        var message = [CChar](repeating: 0, count: 256)
        let w = Int(info.width), h = Int(info.height), channels = Int(info.channels)
        guard w > 0, h > 0, w * h <= wanted.maxPixels else { throw ThumbnailError("PNG of \(w)x\(h) is over the \(wanted.maxPixels)-pixel limit") }
        guard info.plain != 0 else { return nil }
        let k = max(1, min(w / wanted.minWidth, h / wanted.minHeight))
        // A block's sum of 8-bit values must fit 32 bits (k² × 255); only a PNG of over 130,000
        // pixels each way with a tiny box would need more.
        guard k <= 4096 else { throw ThumbnailError("PNG of \(w)x\(h) is too large to shrink") }
        let blocks = Blocks(width: w, height: h, factor: k, part: wanted.part)
        var row = [UInt8](repeating: 0, count: w * channels)
        var sums = [UInt32](repeating: 0, count: blocks.kept.width * blocks.kept.height * 3)
        let passes = info.interlaced != 0 ? adam7 : [(0, 0, 1, 1)]
        for (x0, y0, dx, dy) in passes {
            guard w > x0, h > y0 else { continue }  // an empty pass: libpng skips it
            // The pass's columns that fall in kept blocks, and each one's block, once per pass.
            let columns = blocks.columns(start: x0, step: dx)
            // Without interlacing, the rows below the kept ones are never decoded.
            let end = passes.count == 1 ? blocks.rowsEnd : h
            for y in stride(from: y0, to: end, by: dy) {
                guard albumfs_png_rows_next(reader, &row, &message, message.count) == 0 else {
                    let readErrno = albumfs_png_rows_read_errno(reader)
                    if readErrno != 0 { throw .original("read", Errno(rawValue: readErrno)) }
                    throw ThumbnailError("PNG decode failed: \(text(message))")
                }
                guard let blockRow = blocks.sumsRow(y) else { continue }
                add(row, columns: columns, channels: channels, to: &sums, blockRow: blockRow)
            }
        }
        let image = blocks.averages(sums)
        return Shrunk(decoded: DecodedImage(image, at: blocks.kept.x, blocks.kept.y, of: blocks.width, blocks.height), factor: k)
    }

    /// A PNG's pixels gathered in k×k blocks (the last row and column of blocks may be narrower),
    /// of which the `kept` ones are summed.
    private struct Blocks {
        let source: (width: Int, height: Int)
        let factor: Int
        /// The shrunk image's size, in blocks.
        let width: Int
        let height: Int
        let kept: PixelRect

        init(width w: Int, height h: Int, factor k: Int, part: ((_ width: Int, _ height: Int) -> PixelRect)?) {
            source = (w, h)
            factor = k
            width = (w + k - 1) / k
            height = (h + k - 1) / k
            kept = part?(width, height) ?? PixelRect(x: 0, y: 0, width: width, height: height)
        }

        /// The source row after the last one a kept block holds.
        var rowsEnd: Int { min(source.height, (kept.y + kept.height) * factor) }

        /// Where source row `y`'s blocks start in the sums, or nil when it is in no kept block.
        func sumsRow(_ y: Int) -> Int? {
            let by = y / factor - kept.y
            return (0..<kept.height).contains(by) ? by * kept.width * 3 : nil
        }

        /// The columns x = start + i·step (i = 0, 1, …) in kept blocks: (index in the pass's row,
        /// offset of the block's sums within a row of blocks).
        func columns(start: Int, step: Int) -> [(index: Int, block: Int)] {
            stride(from: start, to: source.width, by: step).enumerated().compactMap { i, x in
                let bx = x / factor - kept.x
                return (0..<kept.width).contains(bx) ? (i, bx * 3) : nil
            }
        }

        /// The image of the kept blocks' averages.
        func averages(_ sums: [UInt32]) -> RGBImage {
            var out = [UInt8](repeating: 0, count: kept.width * kept.height * 3)
            for by in 0..<kept.height {
                let rows = UInt32(min(factor, source.height - (kept.y + by) * factor))
                for bx in 0..<kept.width {
                    let count = UInt32(min(factor, source.width - (kept.x + bx) * factor)) * rows
                    for c in 0..<3 {
                        let i = (by * kept.width + bx) * 3 + c
                        out[i] = UInt8((sums[i] + count / 2) / count)
                    }
                }
            }
            return RGBImage(width: kept.width, height: kept.height, pixels: out)
        }
    }

    /// Adds a row's pixels (RGB, or RGBA put on white) to the sums of the blocks they fall in.
    private static func add(_ row: [UInt8], columns: [(index: Int, block: Int)], channels: Int, to sums: inout [UInt32], blockRow: Int) {
        row.withUnsafeBufferPointer { px in
            sums.withUnsafeMutableBufferPointer { sum in
                columns.withUnsafeBufferPointer { columns in
                    if channels == 3 {
                        for (i, block) in columns {
                            let p = i * 3, o = blockRow + block
                            sum[o] += UInt32(px[p])
                            sum[o + 1] += UInt32(px[p + 1])
                            sum[o + 2] += UInt32(px[p + 2])
                        }
                        return
                    }
                    for (i, block) in columns {
                        let p = i * 4, o = blockRow + block
                        let a = UInt32(px[p + 3])
                        sum[o] += RGBImage.onWhite(px[p], alpha: a)
                        sum[o + 1] += RGBImage.onWhite(px[p + 1], alpha: a)
                        sum[o + 2] += RGBImage.onWhite(px[p + 2], alpha: a)
                    }
                }
            }
        }
    }

    static func text(_ chars: [CChar]) -> String {
        String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func message(_ image: png_image) -> String {
        withUnsafeBytes(of: image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
