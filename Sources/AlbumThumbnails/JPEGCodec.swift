import AlbumCore
import AlbumSystem
import CJPEGStream
import CTurboJPEG
import Glibc

/// A JPEG decoded as it is read (libjpeg's classic API through `CJPEGStream`), from an open file
/// or from memory, shrunk in the DCT. The header is read on creation; `decode` reads the rest.
///
/// Why not TurboJPEG's `tjDecompress2`: it wants the whole file in memory first, so a render
/// would read the original and only then decode it; here the
/// kernel reads ahead while libjpeg decodes, and skipped segments and trailing data (depth maps,
/// MPF previews, a motion photo's video) are never read.
final class JPEGStream {
    private let decoder: OpaquePointer
    let width: Int
    let height: Int
    /// CMYK or YCCK: decoded as CMYK and converted here.
    let cmyk: Bool
    /// Progressive (or multi-scan): decoding holds every DCT coefficient, `coefficientBytes`.
    let progressive: Bool
    let coefficientBytes: Int
    /// The open file and the JPEG's range in it (nil: in memory), for decoders of bands.
    private(set) var file: (fd: Int32, range: Range<Int>)?
    /// What libjpeg read of the scan's shape: where bands may be cut (`RestartBands`).
    let scan: ScanShape

    /// An image's MCUs and restart markers, as its header gives them.
    struct ScanShape {
        var huffman: Bool
        var mcuWidth: Int
        var mcuHeight: Int
        /// MCUs between restart markers (0: none).
        var restartInterval: Int
        /// Where the scan's data begins in the JPEG (nil: decoded from memory).
        var start: Int?
    }

    /// The JPEG in `range` of the open file `fd` (which must stay open while this lives).
    convenience init(file fd: Int32, range: Range<Int>) throws(ThumbnailError) {
        try self.init(albumfs_jpeg_new_file(fd, Int64(range.lowerBound), Int64(range.count)))
        file = (fd, range)
    }

    convenience init(bytes: [UInt8]) throws(ThumbnailError) {
        try self.init(bytes.withUnsafeBufferPointer { albumfs_jpeg_new_memory($0.baseAddress, $0.count) })
    }

    /// Reads the header. The corresponding C function is `jpeg_read_header`.
    private init(_ created: OpaquePointer?) throws(ThumbnailError) {
        guard let created else { throw ThumbnailError("out of memory for a JPEG decoder") }
        var info = albumfs_jpeg_info()
        guard albumfs_jpeg_header(created, &info) == 0, info.width > 0, info.height > 0 else {
            let error = Self.failure(created, "not a decodable JPEG")
            albumfs_jpeg_free(created)
            throw error
        }
        decoder = created
        width = Int(info.width)
        height = Int(info.height)
        cmyk = info.cmyk != 0
        progressive = info.progressive != 0
        coefficientBytes = Int(clamping: info.coefficient_bytes)
        scan = ScanShape(huffman: info.huffman != 0, mcuWidth: Int(info.mcu_width), mcuHeight: Int(info.mcu_height),
                         restartInterval: Int(info.restart_interval), start: info.scan_start >= 0 ? Int(info.scan_start) : nil)
    }

    /// What decoding at `scale` takes at most: the coefficient buffer of a progressive JPEG (a
    /// baseline one streams), and the decoded image twice (it, and what the area filter makes).
    func decodingBytes(scale: (Int, Int)) -> Int {
        let pixels = Self.scaled(width, scale) * Self.scaled(height, scale)
        return (progressive ? coefficientBytes : 0) + 2 * pixels * (cmyk ? 4 : 3)
    }

    deinit { albumfs_jpeg_free(decoder) }

    /// The scaling factors libjpeg can apply in the DCT: n/8 for n = 1…16, as (num, denom) reduced.
    static let scalingFactors: [(Int, Int)] = (1...16).map { n in
        let g = gcd(n, 8)
        return (n / g, 8 / g)
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }

    /// A dimension after DCT scaling by num/denom (rounded up, as libjpeg does).
    static func scaled(_ dim: Int, _ f: (Int, Int)) -> Int { (dim * f.0 + f.1 - 1) / f.1 }

    /// Decodes to RGB at num/denom of the full size (fast IDCT and upsampling: the image is then
    /// averaged down at least 2x by the area filter, which hides their small errors), only the
    /// `part` of the scaled image asked for (given its size; nil: all of it), widened to whole
    /// iMCU columns: rows above it are skipped, rows below never decoded nor read. A few corrupt
    /// bytes still give an image, as browsers show it, and so does a file cut short (its missing
    /// rows grey, as libjpeg fills them, as GdkPixbuf and ImageMagick show it) unless `whole` asks
    /// for every row decoded (an embedded preview: the photo itself is the better choice).
    /// libjpeg may allocate at most `memoryLimit` bytes; what it took is given back at the end
    /// (nothing else can be asked of the image then: its ICC profile is read before).
    /// The corresponding C functions are `jpeg_start_decompress`, `jpeg_crop_scanline`,
    /// `jpeg_skip_scanlines` and `jpeg_read_scanlines`.
    func decode(scale: (Int, Int), memoryLimit: Int = .max, whole: Bool = false,
                part: ((_ width: Int, _ height: Int) -> PixelRect)? = nil) throws(ThumbnailError) -> DecodedImage {
        defer { albumfs_jpeg_release_image(decoder) }
        albumfs_jpeg_limit_memory(decoder, UInt64(max(0, memoryLimit)))
        var w: UInt32 = 0, h: UInt32 = 0
        var components: Int32 = 0
        guard albumfs_jpeg_start(decoder, UInt32(scale.0), UInt32(scale.1), &w, &h, &components) == 0,
              components == (cmyk ? 4 : 3) else { throw Self.failure(decoder, "JPEG decode failed") }
        let wanted = part?(Int(w), Int(h)) ?? PixelRect(x: 0, y: 0, width: Int(w), height: Int(h))
        var x = UInt32(wanted.x), columns = UInt32(wanted.width)
        guard albumfs_jpeg_crop(decoder, &x, &columns) == 0 else { throw Self.failure(decoder, "JPEG decode failed") }
        let width = Int(columns), height = wanted.height, channels = Int(components)
        var out = [UInt8](repeating: 0, count: width * height * channels)
        let rows = PixelRect(x: Int(x), y: wanted.y, width: width, height: height)
        let banded = !whole && bands(scale: scale, memoryLimit: memoryLimit, rows: rows, channels: channels, into: &out)
        if !banded {
            let read = out.withUnsafeMutableBufferPointer {
                albumfs_jpeg_read_rows(decoder, $0.baseAddress, width * channels, UInt32(wanted.y), UInt32(height))
            }
            guard read == 0 else { throw Self.failure(decoder, "JPEG decode failed") }
            if whole, albumfs_jpeg_cut_short(decoder) != 0 { throw ThumbnailError("JPEG decode failed: Premature end of JPEG file") }
        }
        let image = cmyk ? Self.rgb(cmyk: out, width: width, height: height) : RGBImage(width: width, height: height, pixels: out)
        return DecodedImage(image, at: Int(x), wanted.y, of: Int(w), Int(h))
    }

    /// Images smaller than this are decoded in one piece (bands win from 0.75 MP up; smaller
    /// was not measured: docs/benchmarks.md).
    static let bandsFromPixels = 500_000
    /// Bands at most, whatever the cores.
    static let mostBands = 4

    /// Decodes `rows` (of the image at `scale`, already started and cropped to the same columns
    /// on this decoder) in bands side by side (`RestartBands`), each on a decoder of its own,
    /// into `out`; false when the image is not cut (small, progressive, in memory, no restart
    /// markers that start rows, one core) or a band failed: this decoder then decodes it all.
    private func bands(scale: (Int, Int), memoryLimit: Int, rows: PixelRect, channels: Int, into out: inout [UInt8]) -> Bool {
        let cores = min(Self.mostBands, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        guard cores > 1, width * height >= Self.bandsFromPixels, let file, let plan = RestartBands(self) else { return false }
        let mcu = plan.mcuHeight * scale.0 / scale.1
        let needed = rows.y / mcu..<min(plan.mcuRows, (rows.y + rows.height + mcu - 1) / mcu)
        let bands = plan.bands(covering: needed, count: cores)
        guard bands.count > 1 else { return false }
        let shared = BandDecode(file: file, scale: scale, memoryLimit: memoryLimit, rows: rows, mcu: mcu)
        let stride = rows.width * channels
        return out.withUnsafeMutableBufferPointer { buffer in
            // (Shared unchecked: each band writes only its own rows of `out`, which lives until
            // every band has returned.)
            nonisolated(unsafe) let base = buffer.baseAddress!
            let works: [@Sendable () -> Bool] = bands.map { band in
                { Self.decode(band, of: plan, shared, into: base, stride: stride) }
            }
            return Parallel.all(works).allSatisfy { $0 }
        }
    }

    /// What every band of one banded decode shares: the file, the scale, each band decoder's
    /// memory, the rows wanted (of the image at `scale`) and the height of a row of MCUs at it.
    private struct BandDecode: Sendable {
        let file: (fd: Int32, range: Range<Int>)
        let scale: (Int, Int)
        let memoryLimit: Int
        let rows: PixelRect
        let mcu: Int
    }

    /// Decodes one band's share of `rows` into its rows of `base`: true when every one of them is
    /// there (the band's columns those of the image, its data whole).
    private static func decode(_ band: RestartBands.Band, of plan: RestartBands, _ shared: BandDecode,
                               into base: UnsafeMutablePointer<UInt8>, stride: Int) -> Bool {
        let (file, scale, rows, mcu) = (shared.file, shared.scale, shared.rows, shared.mcu)
        let height = min(plan.imageHeight, band.rows.upperBound * plan.mcuHeight) - band.rows.lowerBound * plan.mcuHeight
        let header = plan.header(height: height)
        guard let decoder = header.withUnsafeBufferPointer({
            albumfs_jpeg_new_band(file.fd, $0.baseAddress, $0.count, Int64(file.range.lowerBound + band.data.lowerBound), Int64(band.data.count))
        }) else { return false }
        defer { albumfs_jpeg_free(decoder) }
        var info = albumfs_jpeg_info()
        var w: UInt32 = 0, h: UInt32 = 0, components: Int32 = 0
        var x = UInt32(rows.x), columns = UInt32(rows.width)
        albumfs_jpeg_limit_memory(decoder, UInt64(max(0, shared.memoryLimit)))
        guard albumfs_jpeg_header(decoder, &info) == 0,
              albumfs_jpeg_start(decoder, UInt32(scale.0), UInt32(scale.1), &w, &h, &components) == 0,
              albumfs_jpeg_crop(decoder, &x, &columns) == 0, Int(x) == rows.x, Int(columns) == rows.width else { return false }
        let top = band.rows.lowerBound * mcu
        let first = max(rows.y, top), end = min(rows.y + rows.height, top + Int(h))
        guard first < end else { return true }
        let into = base + (first - rows.y) * stride
        defer { albumfs_jpeg_release_image(decoder) }
        return albumfs_jpeg_read_rows(decoder, into, stride, UInt32(first - top), UInt32(end - first)) == 0
            && albumfs_jpeg_cut_short(decoder) == 0
    }

    /// Adobe's inverted CMYK (what libjpeg hands back) as RGB: R = C·K/255 with the stored values.
    private static func rgb(cmyk: [UInt8], width: Int, height: Int) -> RGBImage {
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for i in 0..<(width * height) {
            let k = Int(cmyk[i * 4 + 3])
            rgb[i * 3] = UInt8(Int(cmyk[i * 4]) * k / 255)
            rgb[i * 3 + 1] = UInt8(Int(cmyk[i * 4 + 1]) * k / 255)
            rgb[i * 3 + 2] = UInt8(Int(cmyk[i * 4 + 2]) * k / 255)
        }
        return RGBImage(width: width, height: height, pixels: rgb)
    }

    /// The ICC profile in the header's APP2 segments, or nil (none, or its chunks damaged).
    /// The corresponding C function is `jpeg_read_icc_profile`.
    func iccProfile() -> [UInt8]? {
        var data: UnsafeMutablePointer<UInt8>?
        var length: UInt32 = 0
        guard albumfs_jpeg_icc_profile(decoder, &data, &length) == 1, let data else { return nil }
        defer { free(data) }
        return Array(UnsafeBufferPointer(start: data, count: Int(length)))
    }

    /// What stopped `decoder`: its file unreadable (the original's failure), or its content.
    private static func failure(_ decoder: OpaquePointer, _ what: String) -> ThumbnailError {
        let readErrno = albumfs_jpeg_read_errno(decoder)
        if readErrno != 0 { return .original("read", Errno(rawValue: readErrno)) }
        return ThumbnailError("\(what): \(String(cString: albumfs_jpeg_message(decoder)))")
    }
}

/// TurboJPEG compression of thumbnails. The corresponding C function is `tjCompress2`.
final class JPEGEncoder {
    private let handle: tjhandle

    init() throws(ThumbnailError) {
        guard let h = tjInitCompress() else { throw ThumbnailError("tjInitCompress failed") }
        handle = h
    }

    deinit { tjDestroy(handle) }

    func encode(_ image: RGBImage, quality: Int) throws(ThumbnailError) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let rc = image.pixels.withUnsafeBufferPointer { px in
            tjCompress2(handle, px.baseAddress, Int32(image.width), 0, Int32(image.height), Int32(TJPF_RGB.rawValue),
                        &out, &size, Int32(TJSAMP_420.rawValue), Int32(quality), 0)
        }
        defer { tjFree(out) }
        guard rc == 0, let out else { throw ThumbnailError("JPEG encode failed: \(String(cString: tjGetErrorStr2(handle)))") }
        return Array(UnsafeBufferPointer(start: out, count: Int(size)))
    }
}
