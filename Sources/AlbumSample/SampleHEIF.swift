import AlbumThumbnails
import CHeif

/// HEIF encoding for fixtures (libheif: HEIC through x265, AVIF through libaom), as phones write
/// them, and the auxiliary images they add (`SampleHEIF+Auxiliary.swift`).
public enum SampleHEIF {
    /// The image codecs of HEIF files: HEVC (a HEIC, through libheif's x265 encoder) and AV1 (an
    /// AVIF, through libaom).
    public enum HEIFCodec: Sendable {
        case hevc, av1
    }

    /// What a phone writes about a HEIF image beside its pixels: EXIF and XMP items, an ICC
    /// profile, and its orientation (EXIF's numbering) as rotation and mirror boxes.
    public struct Metadata: Sendable {
        public var exif: [UInt8]?
        public var xmp: String?
        public var orientation: Int
        public var iccProfile: [UInt8]?

        public init(exif: [UInt8]? = nil, xmp: String? = nil, orientation: Int = 1, iccProfile: [UInt8]? = nil) {
            (self.exif, self.xmp, self.orientation, self.iccProfile) = (exif, xmp, orientation, iccProfile)
        }
    }

    /// The images a HEIF file holds besides its primary one, and how that one is stored: an
    /// embedded thumbnail (fitting a square of `thumbnail`'s side, of `thumbnailShows` when
    /// given), an alpha channel of one opacity, a grid of `tile`-sided squares.
    public struct Layout: Sendable {
        public var thumbnail: Int?
        public var thumbnailShows: SampleImage?
        public var alpha: UInt8?
        public var tile: Int?

        public init(thumbnail: Int? = nil, thumbnailShows: SampleImage? = nil, alpha: UInt8? = nil, tile: Int? = nil) {
            (self.thumbnail, self.thumbnailShows, self.alpha, self.tile) = (thumbnail, thumbnailShows, alpha, tile)
        }
    }

    /// Encodes a HEIF image (a HEIC unless `codec` says AV1), as a phone writes one: EXIF and XMP
    /// items describing the image, an ICC profile, and a rotation and mirror (`irot`, `imir`)
    /// for `orientation` (EXIF's numbering): `image` is then the stored pixels, and a reader that
    /// applies the boxes shows it turned as EXIF's `orientation` says. An iPhone writes the same
    /// value in EXIF too (pass it in `exif`), which a reader must not apply a second time.
    /// `thumbnail` embeds a smaller copy fitting a square of that side (as phones embed a
    /// 320x240 one), of `thumbnailShows` when given (a preview showing another picture); `alpha` gives every pixel that opacity in an alpha channel (an iOS sticker's
    /// kind of HEIC); `tile` stores the image as a grid of squares of that side, as iPhones do
    /// (the ICC profile then goes to the thumbnail only: a grid's own profile is not written here).
    public static func heif(_ image: SampleImage, codec: HEIFCodec = .hevc, quality: Int32 = 60, metadata: Metadata = Metadata(),
                            layout: Layout = Layout()) throws(EncodeError) -> [UInt8] {
        let (exif, xmp, orientation, iccProfile) = (metadata.exif, metadata.xmp, metadata.orientation, metadata.iccProfile)
        let (thumbnail, thumbnailShows, alpha, tile) = (layout.thumbnail, layout.thumbnailShows, layout.alpha, layout.tile)
        if let failure = HEIFLibrary.setupFailure { throw EncodeError(description: "libheif init: " + failure) }
        guard let context = heif_context_alloc() else { throw EncodeError(description: "heif_context_alloc failed") }
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, codec == .av1 ? heif_compression_AV1 : heif_compression_HEVC, &encoder),
                  "no \(codec) encoder")
        defer { heif_encoder_release(encoder) }
        try check(heif_encoder_set_lossy_quality(encoder, quality), "quality")

        let picture = try Self.heifImage(image, PixelRect(x: 0, y: 0, width: image.width, height: image.height), alpha: alpha,
                                         iccProfile: iccProfile)
        defer { heif_image_release(picture) }
        guard let options = heif_encoding_options_alloc() else { throw EncodeError(description: "heif_encoding_options_alloc failed") }
        defer { heif_encoding_options_free(options) }
        options.pointee.image_orientation = heif_orientation(rawValue: UInt32(orientation))
        let handle = if let tile { try Self.encodeGrid(image, tile: tile, alpha: alpha, context, encoder, options) }
            else { try Self.encode(picture, context, encoder, options) }
        defer { heif_image_handle_release(handle) }
        if let thumbnail {
            var thumbnailHandle: OpaquePointer?
            // (`thumbnailShows`: another picture of the same shape, as a camera's padded preview.)
            let shown = try thumbnailShows.map { other throws(EncodeError) in
                try Self.heifImage(other, PixelRect(x: 0, y: 0, width: other.width, height: other.height), alpha: alpha, iccProfile: iccProfile)
            }
            defer { if let shown { heif_image_release(shown) } }
            try check(heif_context_encode_thumbnail(context, shown ?? picture, handle, encoder, options, Int32(thumbnail), &thumbnailHandle), "thumbnail")
            heif_image_handle_release(thumbnailHandle)
        }
        if let exif { try check(heif_context_add_exif_metadata(context, handle, exif, Int32(exif.count)), "EXIF") }
        if let xmp {
            let bytes = Array(xmp.utf8)
            try check(heif_context_add_XMP_metadata(context, handle, bytes, Int32(bytes.count)), "XMP")
        }

        let out = HEIFBytes()
        var writer = heif_writer(writer_api_version: 1, write: { _, data, size, userdata in
            let out = Unmanaged<HEIFBytes>.fromOpaque(userdata!).takeUnretainedValue()
            out.bytes += UnsafeRawBufferPointer(start: data, count: size)
            // libheif (1.19) wants a message even for success: a literal's bytes, NUL-terminated.
            let success: StaticString = "Success"
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified,
                              message: UnsafeRawPointer(success.utf8Start).assumingMemoryBound(to: CChar.self))
        })
        try check(heif_context_write(context, &writer, Unmanaged.passUnretained(out).toOpaque()), "write")
        return out.bytes
    }

    private static func encode(_ picture: OpaquePointer, _ context: OpaquePointer, _ encoder: OpaquePointer?,
                               _ options: UnsafeMutablePointer<heif_encoding_options>) throws(EncodeError) -> OpaquePointer? {
        var handle: OpaquePointer?
        try check(heif_context_encode_image(context, picture, encoder, options, &handle), "encode")
        return handle
    }

    /// The image as a grid of `tile`-pixel squares, as an iPhone stores its photos (4032x3024 in
    /// 8x6 tiles of 512: the last column and row reach past the image, which the grid's size crops).
    private static func encodeGrid(_ image: SampleImage, tile: Int, alpha: UInt8?, _ context: OpaquePointer, _ encoder: OpaquePointer?,
                                   _ options: UnsafeMutablePointer<heif_encoding_options>) throws(EncodeError) -> OpaquePointer? {
        guard albumfs_heif_has_tiles() != 0 else { throw EncodeError(description: "libheif is older than 1.19: no grid images") }
        // libheif's grid writer puts the orientation on every tile, where readers disagree about
        // it (libheif's whole decode leaves it out, its tile decode applies it): the grid alone
        // carries it here, as an iPhone writes it (`irot`; mirrored orientations are not made).
        let turns = [1: 0, 8: 1, 3: 2, 6: 3][Int(options.pointee.image_orientation.rawValue)]
        guard let turns else { throw EncodeError(description: "a grid is only turned here, not mirrored") }
        options.pointee.image_orientation = heif_orientation_normal
        defer { options.pointee.image_orientation = heif_orientation(rawValue: UInt32([0: 1, 1: 8, 2: 3, 3: 6][turns]!)) }
        let columns = (image.width + tile - 1) / tile, rows = (image.height + tile - 1) / tile
        var grid: OpaquePointer?
        try check(heif_context_add_grid_image(context, UInt32(image.width), UInt32(image.height), UInt32(columns), UInt32(rows), options, &grid),
                  "grid")
        for ty in 0..<rows {
            for tx in 0..<columns {
                let part = try heifImage(image, PixelRect(x: tx * tile, y: ty * tile, width: tile, height: tile), alpha: alpha, iccProfile: nil)
                defer { heif_image_release(part) }
                try check(heif_context_add_image_tile(context, grid, UInt32(tx), UInt32(ty), part, encoder), "tile")
            }
        }
        try check(heif_context_set_primary_image(context, grid), "primary image")
        if turns > 0 {
            let irot = UInt32(0x69726F74)
            try check(heif_item_add_raw_property(context, heif_image_handle_get_item_id(grid), irot, nil, [UInt8(turns)], 1, 1, nil), "irot")
        }
        return grid
    }

    /// The pixels of `rect` of `image` as a libheif image (those past its edges repeat the edge).
    private static func heifImage(_ image: SampleImage, _ rect: PixelRect, alpha: UInt8?, iccProfile: [UInt8]?) throws(EncodeError) -> OpaquePointer {
        var picture: OpaquePointer?
        try check(heif_image_create(Int32(rect.width), Int32(rect.height), heif_colorspace_RGB,
                                    alpha == nil ? heif_chroma_interleaved_RGB : heif_chroma_interleaved_RGBA, &picture), "heif_image_create")
        guard let picture else { throw EncodeError(description: "heif_image_create failed") }
        var stride: Int32 = 0
        guard heif_image_add_plane(picture, heif_channel_interleaved, Int32(rect.width), Int32(rect.height), 8).code == heif_error_Ok,
              let plane = heif_image_get_plane(picture, heif_channel_interleaved, &stride) else {
            heif_image_release(picture)
            throw EncodeError(description: "heif_image_add_plane failed")
        }
        let channels = alpha == nil ? 3 : 4
        for y in 0..<rect.height {
            for x in 0..<rect.width {
                let sx = min(rect.x + x, image.width - 1), sy = min(rect.y + y, image.height - 1)
                let to = plane + y * Int(stride) + x * channels, from = (sy * image.width + sx) * 3
                to[0] = image.pixels[from]; to[1] = image.pixels[from + 1]; to[2] = image.pixels[from + 2]
                if let alpha { to[3] = alpha }
            }
        }
        if let iccProfile, heif_image_set_raw_color_profile(picture, "prof", iccProfile, iccProfile.count).code != heif_error_Ok {
            heif_image_release(picture)
            throw EncodeError(description: "libheif ICC profile failed")
        }
        return picture
    }

    private static func check(_ error: heif_error, _ what: String) throws(EncodeError) {
        guard error.code != heif_error_Ok else { return }
        throw EncodeError(description: "libheif \(what): " + (error.message.map { String(cString: $0) } ?? "\(error.code.rawValue)"))
    }
}

/// Where `heif_context_write` puts the file.
private final class HEIFBytes {
    var bytes: [UInt8] = []
}
