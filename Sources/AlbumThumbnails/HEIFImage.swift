import AlbumCore
import AlbumSystem
import AlbumMetadata
import CHeif

import Glibc

/// A HEIF image (HEIC, HEIF, AVIF) opened with libheif: its primary image's size and colour
/// profile, and its decode to 8-bit RGB with the file's crop, rotation and mirror (`clap`, `irot`,
/// `imir`) applied, as the format requires: the image comes out upright, and its EXIF Orientation
/// is not applied again (`ImageFormat.decodesUpright`).
///
/// HEVC and AV1 have no shrink-on-load (a JPEG's DCT scaling): the primary image, or a thumbnail
/// the file embeds (`thumbnails()`), is decoded whole, then resampled; a grid image (an iPhone's
/// photo) only as far as the tiles a crop needs (`decodeTiles`).
///
/// libheif 1.15 works on the whole file in memory (it reads every top-level box whole when it
/// opens one), so it is given a buffer of the file's size in which only what it needs has been
/// read: at first the box headers and the `meta` box (found by `HEIFContainer`), which is all an
/// open looks at; then, for a decode, the bytes of the one image decoded (`load`): an embedded
/// thumbnail's few kilobytes where it will do, not the photo's megabytes (libheif reads an item's
/// data from the buffer by offset when it decodes it, not when it opens the file). The rest stays
/// zeros, which were never read.
final class HEIFImage {
    private let context: OpaquePointer
    private let handle: OpaquePointer
    /// A buffer of the file's size, which libheif reads in place
    /// (`read_from_memory_without_copy`), filled as far as `load` read the file into it.
    private let bytes: UnsafeMutableRawBufferPointer
    private let original: Original
    /// The file's items (nil: not understood here; the whole file is read before a decode).
    private let items: HEIFItemTable?
    /// Whether every byte of the file is in `bytes`.
    private var whole = false
    /// The file's first bytes, read into `bytes` at open (its boxes as far as `meta`).
    private var prefix = 0
    /// Bytes of the file read into `bytes` so far (for the render's plan).
    private(set) var bytesRead = 0
    /// The primary image's size once turned upright.
    let width: Int
    let height: Int

    /// Opens `original` (kept, and read from, until this is gone): its container is read, or all
    /// of it when its boxes cannot be walked here.
    init(_ original: Original) throws(ThumbnailError) {
        if let failure = HEIFLibrary.setupFailure { throw ThumbnailError("HEIF: \(failure)") }
        // calloc: the pages never written stay the kernel's shared zero page, costing no memory
        // until libheif copies them at open (as it copies any file it opens).
        guard let base = calloc(max(1, original.count), 1) else { throw ThumbnailError("out of memory for a \(original.count)-byte HEIF file") }
        let bytes = UnsafeMutableRawBufferPointer(start: base, count: original.count)
        self.bytes = bytes
        self.original = original
        let container = try? HEIFContainer(size: Int64(original.count), all: true) { (offset, count) throws(ThumbnailError) in
            try original.read(Int(offset), count)
        }
        items = container?.items
        var read = 0
        do throws(ThumbnailError) {
            if let container, let metaEnd = container.metaEnd {
                read += try Self.fill(bytes, from: original, 0, Int(metaEnd))
                prefix = Int(metaEnd)
                for box in container.boxes where box.offset >= metaEnd {
                    read += try Self.fill(bytes, from: original, Int(box.offset), box.header.headerLength)
                }
            } else {
                read += try Self.fill(bytes, from: original, 0, original.count)
                whole = true
            }
        } catch {
            free(base)
            throw error
        }
        bytesRead = read
        guard let context = heif_context_alloc() else {
            free(base)
            throw ThumbnailError("libheif: out of memory")
        }
        var handle: OpaquePointer?
        var error = heif_context_read_from_memory_without_copy(context, bytes.baseAddress, original.count, nil)
        if error.code == heif_error_Ok { error = heif_context_get_primary_image_handle(context, &handle) }
        guard error.code == heif_error_Ok, let handle else {
            // libheif's message may live in the context: read before the context goes.
            let failure = Self.error(error)
            heif_context_free(context)
            free(base)
            throw failure
        }
        self.context = context
        self.handle = handle
        width = Int(heif_image_handle_get_width(handle))
        height = Int(heif_image_handle_get_height(handle))
    }

    deinit {
        heif_image_handle_release(handle)
        heif_context_free(context)
        free(bytes.baseAddress)
    }

    /// Reads into the buffer what decoding `thumbnail` (nil: the primary image) takes: a
    /// thumbnail that is one coded image stored in the file, its extents; anything else (the
    /// primary image, a grid of tiles, data in the `meta` box's `idat`, a thumbnail with an alpha
    /// channel, which is an image of its own), the whole file.
    func load(_ thumbnail: Thumbnail?) throws(ThumbnailError) {
        guard !whole else { return }
        if let thumbnail, !thumbnail.hasAlpha, let item = items?.items[thumbnail.id], item.constructionMethod == 0,
           ["hvc1", "av01"].contains(item.type), !item.extents.isEmpty,
           item.extents.allSatisfy({ $0.offset >= 0 && $0.length > 0 && $0.offset + $0.length <= Int64(original.count) }) {
            for extent in item.extents { bytesRead += try Self.fill(bytes, from: original, Int(extent.offset), Int(extent.length)) }
            return
        }
        bytesRead += try Self.fill(bytes, from: original, prefix, original.count - prefix)
        whole = true
    }

    /// Reads `count` bytes of `original` at `offset` into the same place in `bytes` (fewer at its
    /// end: the rest stays zeros, which libheif then finds wanting); how many it read.
    private static func fill(_ bytes: UnsafeMutableRawBufferPointer, from original: Original, _ offset: Int, _ count: Int)
        throws(ThumbnailError) -> Int {
        let count = min(count, original.count - offset)
        guard offset >= 0, count > 0 else { return 0 }
        guard let fd = original.fd else {
            let data = try original.read(offset, count)
            (bytes.baseAddress! + offset).copyMemory(from: data, byteCount: data.count)
            return data.count
        }
        // Straight into the buffer: the whole file is not also held as an array.
        let (filled, error) = PositionalRead.fill(fd, into: bytes.baseAddress! + offset, count: count, at: Int64(offset))
        if let error { throw .original("read", error) }
        return filled
    }

    /// What decoding an image of `width` x `height` takes besides the file: the decoder's planes
    /// (YCbCr, up to 16 bits a sample for 10- and 12-bit images, 4:4:4 at most) and the RGB image
    /// made from them.
    static func decodingBytes(width: Int, height: Int) -> Int { width * height * (6 + 3) }

    /// An image the file embeds as a thumbnail of the primary one (a `thmb` item: an iPhone's is
    /// 320x240, beside its 4032x3024 photo), its size once upright.
    struct Thumbnail {
        let id: heif_item_id
        let width: Int
        let height: Int
        /// Whether it has an alpha channel (stored as an image of its own, beside it).
        var hasAlpha = false
    }

    /// The primary image's embedded thumbnails (none when the file says nothing usable of them).
    func thumbnails() -> [Thumbnail] {
        let count = heif_image_handle_get_number_of_thumbnails(handle)
        guard count > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: Int(count))
        let listed = Int(heif_image_handle_get_list_of_thumbnail_IDs(handle, &ids, count))
        return ids.prefix(max(0, min(listed, ids.count))).compactMap { id in
            guard let thumbnail = thumbnailHandle(id) else { return nil }
            defer { heif_image_handle_release(thumbnail) }
            return Thumbnail(id: id, width: Int(heif_image_handle_get_width(thumbnail)), height: Int(heif_image_handle_get_height(thumbnail)),
                             hasAlpha: heif_image_handle_has_alpha_channel(thumbnail) != 0)
        }
    }

    private func thumbnailHandle(_ id: heif_item_id) -> OpaquePointer? {
        var thumbnail: OpaquePointer?
        guard heif_image_handle_get_thumbnail(handle, id, &thumbnail).code == heif_error_Ok else { return nil }
        return thumbnail
    }

    /// The ICC profile the file carries (`colr` of type `prof` or `rICC`), if any. (A colour
    /// description given as numbers, `nclx`, is not turned into a profile: read as sRGB.)
    func iccProfile() -> [UInt8]? {
        let size = heif_image_handle_get_raw_color_profile_size(handle)
        guard size > 0, size <= 4 << 20 else { return nil }
        var profile = [UInt8](repeating: 0, count: size)
        let error = profile.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(handle, $0.baseAddress) }
        return error.code == heif_error_Ok ? profile : nil
    }

    /// The primary image, or its embedded `thumbnail`, upright, 8 bits per sample (deeper images
    /// are scaled down), an alpha channel composited onto white as a PNG's is (iOS stickers and
    /// cut-out subjects are HEICs with alpha; what lies under their transparent pixels is
    /// anything, black mostly).
    func decode(thumbnail: Thumbnail? = nil) throws(ThumbnailError) -> RGBImage {
        guard let thumbnail else { return try Self.decode(handle) }
        guard let thumbnailHandle = thumbnailHandle(thumbnail.id) else { throw ThumbnailError("HEIF: its thumbnail cannot be opened") }
        defer { heif_image_handle_release(thumbnailHandle) }
        return try Self.decode(thumbnailHandle)
    }

    private static func decode(_ handle: OpaquePointer) throws(ThumbnailError) -> RGBImage {
        let declared = (Int(heif_image_handle_get_width(handle)), Int(heif_image_handle_get_height(handle)))
        return try decoded(handle, declared: declared) { (options, colorspace, chroma) in
            var image: OpaquePointer?
            return (heif_decode_image(handle, &image, colorspace, chroma, options), image)
        }
    }

    /// What `decode` does to whatever `decoding` decodes with the options, colour space and
    /// chroma it is given: an upright 8-bit RGB image, alpha put on white.
    /// An image larger than `declared` (its `ispe`, or the grid's tile size), which the estimate
    /// of what it takes was made from, is refused.
    private static func decoded(_ handle: OpaquePointer, declared: (Int, Int),
                                _ decoding: (UnsafeMutablePointer<heif_decoding_options>, heif_colorspace, heif_chroma)
                                    -> (heif_error, OpaquePointer?)) throws(ThumbnailError) -> RGBImage {
        guard let options = heif_decoding_options_alloc() else { throw ThumbnailError("libheif: out of memory") }
        defer { heif_decoding_options_free(options) }
        options.pointee.convert_hdr_to_8bit = 1
        options.pointee.decoder_id = HEIFLibrary.hevcDecoder
        let channels = heif_image_handle_has_alpha_channel(handle) != 0 ? 4 : 3
        let (error, image) = decoding(options, heif_colorspace_RGB, channels == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB)
        guard error.code == heif_error_Ok, let image else { throw Self.error(error) }
        defer { heif_image_release(image) }
        let w = Int(heif_image_get_width(image, heif_channel_interleaved))
        let h = Int(heif_image_get_height(image, heif_channel_interleaved))
        var stride: Int32 = 0
        guard w > 0, h > 0, heif_image_get_bits_per_pixel(image, heif_channel_interleaved) == Int32(8 * channels),
              let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride), Int(stride) >= w * channels
        else { throw ThumbnailError("libheif gave no 8-bit RGB image") }
        guard w <= declared.0, h <= declared.1 else {
            throw ThumbnailError("HEIF: its image decodes to \(w)x\(h), larger than the \(declared.0)x\(declared.1) its header says")
        }
        var pixels = [UInt8](repeating: 0, count: w * h * 3)
        pixels.withUnsafeMutableBufferPointer { out in
            for y in 0..<h {
                let row = plane + y * Int(stride)
                if channels == 3 {
                    UnsafeMutableRawPointer(out.baseAddress! + y * w * 3).copyMemory(from: row, byteCount: w * 3)
                    continue
                }
                for x in 0..<w {
                    let a = UInt32(row[x * 4 + 3])
                    for c in 0..<3 { out[(y * w + x) * 3 + c] = UInt8(RGBImage.onWhite(row[x * 4 + c], alpha: a)) }
                }
            }
        }
        return RGBImage(width: w, height: h, pixels: pixels)
    }

    /// The primary image's grid of tiles as libheif (1.19 and later) decodes them one by one,
    /// upright: tile (x, y) lies at (x·tileWidth − left, y·tileHeight − top) of the image
    /// (`left` and `top`: the padding that lies before the image once it is turned).
    struct Tiling {
        let columns: Int
        let rows: Int
        let tileWidth: Int
        let tileHeight: Int
        let left: Int
        let top: Int

        /// The tiles that hold any pixel of `rect`: columns, then rows.
        func tiles(covering rect: PixelRect) -> (columns: ClosedRange<Int>, rows: ClosedRange<Int>) {
            func span(_ from: Int, _ count: Int, _ size: Int, _ offset: Int, _ limit: Int) -> ClosedRange<Int> {
                let first = min(limit - 1, max(0, (from + offset) / size))
                return first...max(first, min(limit - 1, (from + count - 1 + offset) / size))
            }
            return (span(rect.x, rect.width, tileWidth, left, columns), span(rect.y, rect.height, tileHeight, top, rows))
        }

        /// The part of a `width` x `height` image those tiles make up.
        func span(covering rect: PixelRect, width: Int, height: Int) -> PixelRect {
            let (columns, rows) = tiles(covering: rect)
            let x0 = max(0, columns.lowerBound * tileWidth - left), y0 = max(0, rows.lowerBound * tileHeight - top)
            let x1 = min(width, (columns.upperBound + 1) * tileWidth - left), y1 = min(height, (rows.upperBound + 1) * tileHeight - top)
            return PixelRect(x: x0, y: y0, width: max(1, x1 - x0), height: max(1, y1 - y0))
        }
    }

    /// The most tiles decoded one by one: a grid of more (a hostile file's thousands of tiny
    /// tiles; an iPhone's 48 MP photo is 192) is decoded whole, under libheif's own limits,
    /// rather than listed here tile by tile.
    static let maxTiles = 4096

    /// The primary image's tiling, or nil when it is one coded image (nothing to leave out),
    /// libheif is too old to decode a tile alone, or the tiles' places are not clear.
    ///
    /// The last column and row of tiles reach past the image; turned or mirrored, that padding
    /// lies before it, which libheif's `left_offset` and `top_offset` say. libheif 1.19 gives
    /// there the width of the first tile's part in the image (the header reads as if it gave the
    /// padding), so the shift is worked out from the sizes, and any other layout (a `clap` crop
    /// of the grid) is decoded whole.
    func tiling() -> Tiling? {
        guard albumfs_heif_has_tiles() != 0 else { return nil }
        var t = heif_image_tiling()
        guard heif_image_handle_get_image_tiling(handle, 1, &t).code == heif_error_Ok,
              (2...Self.maxTiles).contains(Int(t.num_columns) * Int(t.num_rows)),
              t.tile_width > 0, t.tile_height > 0, Int(t.image_width) == width, Int(t.image_height) == height else { return nil }
        func shift(_ offset: UInt32, _ count: UInt32, _ size: UInt32, _ image: Int) -> Int? {
            let padding = Int(count) * Int(size) - image
            guard padding >= 0, padding < Int(size) else { return nil }
            switch Int(offset) {
            case 0: return 0
            case padding, Int(size) - padding: return padding
            default: return nil
            }
        }
        guard let left = shift(t.left_offset, t.num_columns, t.tile_width, width),
              let top = shift(t.top_offset, t.num_rows, t.tile_height, height) else { return nil }
        return Tiling(columns: Int(t.num_columns), rows: Int(t.num_rows), tileWidth: Int(t.tile_width), tileHeight: Int(t.tile_height),
                      left: left, top: top)
    }

    /// The part of the primary image that the tiles holding `rect` make up, decoded on every
    /// core: each thread with a libheif context of its own on the same bytes (libheif is safe
    /// across contexts, not within one). Call `load(nil)` first.
    func decodeTiles(covering rect: PixelRect, of tiling: Tiling) throws(ThumbnailError) -> DecodedImage {
        let (columns, rows) = tiling.tiles(covering: rect)
        let part = tiling.span(covering: rect, width: width, height: height)
        let tiles = rows.flatMap { ty in columns.map { (x: $0, y: ty) } }
        var pixels = [UInt8](repeating: 0, count: part.width * part.height * 3)
        let threads = max(1, min(tiles.count, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let failures = pixels.withUnsafeMutableBufferPointer { out in
            // (Shared unchecked: each thread writes only its own tiles' pixels of `out`, and reads
            // the file's bytes, which nothing writes while they decode.)
            nonisolated(unsafe) let out = out
            nonisolated(unsafe) let this = self
            return Parallel.all((0..<threads).map { worker in
                { @Sendable () -> ThumbnailError? in
                    this.decodeTiles(stride(from: worker, to: tiles.count, by: threads).map { tiles[$0] }, of: tiling, into: out, part: part)
                }
            })
        }
        if let failure = failures.compactMap({ $0 }).first { throw failure }
        return DecodedImage(RGBImage(width: part.width, height: part.height, pixels: pixels), at: part.x, part.y, of: width, height)
    }

    /// Decodes `tiles` with a context of this thread's own, each pasted where it lies in `part`.
    private func decodeTiles(_ tiles: [(x: Int, y: Int)], of tiling: Tiling, into out: UnsafeMutableBufferPointer<UInt8>,
                             part: PixelRect) -> ThumbnailError? {
        guard let context = heif_context_alloc() else { return ThumbnailError("libheif: out of memory") }
        defer { heif_context_free(context) }
        var handle: OpaquePointer?
        var error = heif_context_read_from_memory_without_copy(context, bytes.baseAddress, bytes.count, nil)
        if error.code == heif_error_Ok { error = heif_context_get_primary_image_handle(context, &handle) }
        guard error.code == heif_error_Ok, let handle else { return Self.error(error) }
        defer { heif_image_handle_release(handle) }
        do throws(ThumbnailError) {
            for (tx, ty) in tiles {
                let tile = try Self.decoded(handle, declared: (tiling.tileWidth, tiling.tileHeight)) { (options, colorspace, chroma) in
                    var image: OpaquePointer?
                    return (heif_image_handle_decode_image_tile(handle, &image, colorspace, chroma, options, UInt32(tx), UInt32(ty)), image)
                }
                Self.paste(tile, at: tx * tiling.tileWidth - tiling.left, ty * tiling.tileHeight - tiling.top, into: out, part: part)
            }
            return nil
        } catch {
            return error
        }
    }

    /// Copies the pixels of `tile`, placed at (x, y) of the image, that fall in `part` into
    /// `out` (the pixels of `part`).
    private static func paste(_ tile: RGBImage, at x: Int, _ y: Int, into out: UnsafeMutableBufferPointer<UInt8>, part: PixelRect) {
        let left = max(x, part.x), right = min(x + tile.width, part.x + part.width)
        let top = max(y, part.y), bottom = min(y + tile.height, part.y + part.height)
        guard left < right, top < bottom else { return }
        tile.pixels.withUnsafeBufferPointer { px in
            for row in top..<bottom {
                let from = px.baseAddress! + ((row - y) * tile.width + (left - x)) * 3
                let to = out.baseAddress! + ((row - part.y) * part.width + (left - part.x)) * 3
                to.update(from: from, count: (right - left) * 3)
            }
        }
    }

    /// A libheif error as a render's: its message names what was wrong with the file, on one
    /// line (some of libheif's end in a newline; `.albumfs/errors` is one line per file).
    private static func error(_ error: heif_error) -> ThumbnailError {
        let message = error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)"
        return ThumbnailError("HEIF: " + message.split(whereSeparator: \.isNewline).joined(separator: " "))
    }
}
