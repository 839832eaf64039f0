import CRaw
import Glibc

/// A camera RAW opened by LibRaw, in a render worker only (a RAW is hostile bytes to a C library
/// as big as LibRaw; the daemon reads a RAW's dates with its own readers). LibRaw reads the file
/// from albumfs's own copy of it (`libraw_open_buffer`: the worker opens nothing), and is told
/// not to turn what it makes (`user_flip` 0): the camera's orientation (`sizes.flip`) is applied
/// here, once, to the embedded preview and to a decode alike.
/// The corresponding C functions are `libraw_init`, `libraw_open_buffer` and `libraw_close`.
final class RawImage {
    private let handle: UnsafeMutablePointer<libraw_data_t>
    private let buffer: UnsafeMutableRawBufferPointer
    /// The image LibRaw would make (after its margins), the sensor's, and the EXIF orientation
    /// its `flip` stands for.
    let width: Int, height: Int, rawPixels: Int, orientation: Int

    /// LibRaw's `flip` (bit 2 transposes, bit 1 flips rows, bit 0 columns) as an EXIF Orientation.
    static let orientations: [Int: Int] = [0: 1, 1: 2, 2: 4, 3: 3, 4: 5, 5: 8, 6: 6, 7: 7]

    init(_ data: [UInt8], maxPixels: Int, memoryLimit: Int) throws(ThumbnailError) {
        if let failure = albumfs_raw_load() { throw ThumbnailError("LibRaw cannot be loaded (\(String(cString: failure)))") }
        guard let handle = libraw_init(0) else { throw ThumbnailError("LibRaw: libraw_init failed") }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, data.count), alignment: 16)
        data.withUnsafeBytes { buffer.copyMemory(from: $0) }
        let sizes: libraw_image_sizes_t
        do throws(ThumbnailError) {
            handle.pointee.params.user_flip = 0
            handle.pointee.params.half_size = 1
            handle.pointee.params.use_camera_wb = 1
            handle.pointee.params.output_bps = 8
            handle.pointee.params.max_raw_memory_mb = UInt32(clamping: max(1, memoryLimit >> 20))
            try Self.check(libraw_open_buffer(handle, buffer.baseAddress, data.count), "libraw_open_buffer")
            sizes = handle.pointee.sizes
            try Self.checkSizes(sizes, maxPixels: maxPixels)
        } catch {
            libraw_close(handle)
            buffer.deallocate()
            throw error
        }
        self.handle = handle
        self.buffer = buffer
        (width, height, rawPixels) = (Int(sizes.width), Int(sizes.height), Int(sizes.raw_width) * Int(sizes.raw_height))
        orientation = Self.orientations[Int(sizes.flip) & 7] ?? 1
    }

    /// Refuses a RAW with no size, or one over the pixel limit (image or sensor), before any decode.
    static func checkSizes(_ s: libraw_image_sizes_t, maxPixels: Int) throws(ThumbnailError) {
        guard s.width > 0, s.height > 0 else { throw ThumbnailError("RAW: no image size") }
        guard Int(s.width) * Int(s.height) <= maxPixels, Int(s.raw_width) * Int(s.raw_height) <= maxPixels else {
            throw ThumbnailError("RAW of \(s.width)x\(s.height) (sensor \(s.raw_width)x\(s.raw_height)) is over the \(maxPixels)-pixel limit")
        }
    }

    deinit {
        libraw_close(handle)
        buffer.deallocate()
    }

    /// LibRaw's result code as an error (`libraw_strerror`'s words).
    static func check(_ code: Int32, _ what: String) throws(ThumbnailError) {
        guard code != 0 else { return }
        throw ThumbnailError("RAW: \(what): \(libraw_strerror(code).map { String(cString: $0) } ?? "error \(code)")")
    }

    /// The embedded preview, as LibRaw finds it: its format and size (0 where LibRaw knows none
    /// before it is made); nil when the file has none LibRaw can give.
    /// The corresponding C function is `libraw_unpack_thumb`.
    func preview() -> (format: LibRaw_thumbnail_formats, width: Int, height: Int, bytes: Int)? {
        guard libraw_unpack_thumb(handle) == 0 else { return nil }
        let t = handle.pointee.thumbnail
        guard t.tformat == LIBRAW_THUMBNAIL_JPEG || t.tformat == LIBRAW_THUMBNAIL_BITMAP, t.tlength > 0 else { return nil }
        return (t.tformat, Int(t.twidth), Int(t.theight), Int(t.tlength))
    }

    /// The preview LibRaw unpacked: a JPEG file's bytes, or an 8-bit RGB bitmap.
    /// The corresponding C function is `libraw_dcraw_make_mem_thumb`.
    func previewImage() throws(ThumbnailError) -> Made {
        var code: Int32 = 0
        return try Made(libraw_dcraw_make_mem_thumb(handle, &code), code: code, what: "libraw_dcraw_make_mem_thumb")
    }

    /// The raw data decoded at half size (each 2x2 filter block one pixel: no demosaicing), 8-bit RGB.
    /// The corresponding C functions are `libraw_unpack`, `libraw_dcraw_process` and `libraw_dcraw_make_mem_image`.
    func halfSize() throws(ThumbnailError) -> RGBImage {
        try Self.check(libraw_unpack(handle), "libraw_unpack")
        try Self.check(libraw_dcraw_process(handle), "libraw_dcraw_process")
        var code: Int32 = 0
        let made = try Made(libraw_dcraw_make_mem_image(handle, &code), code: code, what: "libraw_dcraw_make_mem_image")
        guard made.isBitmap else { throw ThumbnailError("RAW: the decode made no bitmap") }
        // (Half of the image, rounded either way, and no more.)
        guard abs(made.width - (width + 1) / 2) <= 1, abs(made.height - (height + 1) / 2) <= 1 else {
            throw ThumbnailError("RAW: a decode of \(made.width)x\(made.height) where half of \(width)x\(height) was asked")
        }
        return try made.rgb()
    }

    /// What LibRaw made (`libraw_processed_image_t`), checked against what it says it holds and
    /// freed with it (`libraw_dcraw_clear_mem`).
    final class Made {
        private let image: UnsafeMutablePointer<libraw_processed_image_t>
        let width: Int, height: Int
        var isBitmap: Bool { image.pointee.type == LIBRAW_IMAGE_BITMAP }

        init(_ image: UnsafeMutablePointer<libraw_processed_image_t>?, code: Int32, what: String) throws(ThumbnailError) {
            guard let image else {
                try RawImage.check(code == 0 ? -1 : code, what)
                throw ThumbnailError("RAW: \(what) made nothing")
            }
            self.image = image
            let i = image.pointee
            (width, height) = (Int(i.width), Int(i.height))
            switch i.type {
            case LIBRAW_IMAGE_JPEG: guard i.data_size > 0 else { throw ThumbnailError("RAW: an empty JPEG preview") }
            case LIBRAW_IMAGE_BITMAP:
                guard i.colors == 3, i.bits == 8, width > 0, height > 0, Int(i.data_size) == width * height * 3 else {
                    throw ThumbnailError("RAW: a bitmap of \(width)x\(height), \(i.colors) colours of \(i.bits) bits in \(i.data_size) bytes")
                }
            default: throw ThumbnailError("RAW: an image of unknown type \(i.type.rawValue)")
            }
        }

        deinit { libraw_dcraw_clear_mem(image) }

        /// The bytes LibRaw made: `data_size` of them from `data` (a C flexible array member,
        /// which Swift imports as one byte: reached by its offset in the struct).
        var bytes: [UInt8] {
            let count = Int(image.pointee.data_size)
            let data = UnsafeRawPointer(image) + MemoryLayout<libraw_processed_image_t>.offset(of: \.data)!
            return [UInt8](UnsafeRawBufferPointer(start: data, count: count))
        }

        func rgb() throws(ThumbnailError) -> RGBImage {
            guard isBitmap else { throw ThumbnailError("RAW: not a bitmap") }
            return RGBImage(width: width, height: height, pixels: bytes)
        }
    }
}
