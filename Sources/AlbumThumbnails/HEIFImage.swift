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
/// the file embeds (`thumbnails()`), is decoded whole, then resampled.
///
/// libheif 1.15 works on the whole file in memory (it reads every top-level box whole when it
/// opens one), so it is given a buffer of the file's size in which only what it needs has been
/// read: at first the box headers and the `meta` box (found by `HEIFContainer`), which is all an
/// open looks at; then, for a decode, the bytes of the one image decoded (`load`): an embedded
/// thumbnail's few kilobytes where it will do, not the photo's megabytes (libheif reads an item's
/// data from the buffer by offset when it decodes it, not when it opens the file). The rest stays
/// zeros, which were never read.
/// libheif, set up once for the process (`heif_init`, never undone) before any context is made:
/// left to `heif_context_alloc`, the setup of its codecs would run unguarded in two threads that
/// start at once. Every user of libheif (renders here, the sample's encoder) asks it first.
public enum HEIFLibrary {
    /// Nil once libheif is ready; else why not, in its words. (A `static let` is initialised once,
    /// whichever thread comes first.)
    public static let setupFailure: String? = {
        // Loaded here, on first use (CHeif.h says why): a library missing says so, no crash.
        if let failure = albumfs_heif_load() { return String(cString: failure) }
        let result = heif_init(nil)
        return result.code == heif_error_Ok ? nil : result.message.map { String(cString: $0) } ?? "error \(result.code.rawValue)"
    }()

    /// The oldest libheif that reads recent iPhones' HEICs: 1.15 refuses them ("Too many
    /// auxiliary image references", "Metadata not correctly assigned to image").
    public static let neededVersion = (major: 1, minor: 19)

    /// The loaded libheif's version (`1.19.7`), nil when it cannot be loaded.
    public static var version: String? {
        guard setupFailure == nil, let text = heif_get_version() else { return nil }
        return String(cString: text)
    }

    /// What to tell the user about the libheif loaded: nil when it is recent enough; else why
    /// HEIC images may show no thumbnail and how to get a newer one.
    public static func versionWarning(installHint: String) -> String? {
        if let setupFailure { return "libheif cannot be loaded (\(setupFailure)): HEIC and AVIF images get no thumbnail; \(installHint)" }
        guard let version, !isRecentEnough(version) else { return nil }
        return "libheif \(version) is older than \(neededVersion.major).\(neededVersion.minor), which recent iPhones' HEICs need: some HEIC images may get no thumbnail; \(installHint)"
    }

    /// Whether a libheif version string (`1.19.7`) is `neededVersion` or newer.
    public static func isRecentEnough(_ version: String) -> Bool {
        let parts = version.split(separator: ".").map { Int($0) ?? 0 }
        let major = parts.first ?? 0, minor = parts.count > 1 ? parts[1] : 0
        return (major, minor) >= (neededVersion.major, neededVersion.minor)
    }
}

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
                for (offset, box) in container.boxes where offset >= metaEnd {
                    read += try Self.fill(bytes, from: original, Int(offset), box.headerLength)
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
            heif_context_free(context)
            free(base)
            throw Self.error(error)
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
        guard let options = heif_decoding_options_alloc() else { throw ThumbnailError("libheif: out of memory") }
        defer { heif_decoding_options_free(options) }
        options.pointee.convert_hdr_to_8bit = 1
        let channels = heif_image_handle_has_alpha_channel(handle) != 0 ? 4 : 3
        var image: OpaquePointer?
        let error = heif_decode_image(handle, &image, heif_colorspace_RGB,
                                      channels == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, options)
        guard error.code == heif_error_Ok, let image else { throw Self.error(error) }
        defer { heif_image_release(image) }
        let w = Int(heif_image_get_width(image, heif_channel_interleaved))
        let h = Int(heif_image_get_height(image, heif_channel_interleaved))
        var stride: Int32 = 0
        guard w > 0, h > 0, heif_image_get_bits_per_pixel(image, heif_channel_interleaved) == Int32(8 * channels),
              let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride), Int(stride) >= w * channels
        else { throw ThumbnailError("libheif gave no 8-bit RGB image") }
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

    /// A libheif error as a render's: its message names what was wrong with the file, on one
    /// line (some of libheif's end in a newline; `.albumfs/errors` is one line per file).
    private static func error(_ error: heif_error) -> ThumbnailError {
        let message = error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)"
        return ThumbnailError("HEIF: " + message.split(whereSeparator: \.isNewline).joined(separator: " "))
    }
}
