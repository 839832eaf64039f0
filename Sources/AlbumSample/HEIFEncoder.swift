import AlbumThumbnails
import CHeif

extension Encoders {
    /// The image codecs of HEIF files: HEVC (a HEIC, through libheif's x265 encoder) and AV1 (an
    /// AVIF, through libaom).
    public enum HEIFCodec: Sendable {
        case hevc, av1
    }

    /// Encodes a HEIF image (a HEIC unless `codec` says AV1), as a phone writes one: EXIF and XMP
    /// items describing the image, an ICC profile, and a rotation and mirror (`irot`, `imir`)
    /// for `orientation` (EXIF's numbering): `image` is then the stored pixels, and a reader that
    /// applies the boxes shows it turned as EXIF's `orientation` says. An iPhone writes the same
    /// value in EXIF too (pass it in `exif`), which a reader must not apply a second time.
    /// `thumbnail` embeds a smaller copy fitting a square of that side (as phones embed a
    /// 320x240 one); `alpha` gives every pixel that opacity in an alpha channel (an iOS sticker's
    /// kind of HEIC).
    public static func heif(_ image: SampleImage, codec: HEIFCodec = .hevc, quality: Int32 = 60, exif: [UInt8]? = nil,
                            xmp: String? = nil, orientation: Int = 1, iccProfile: [UInt8]? = nil,
                            thumbnail: Int? = nil, alpha: UInt8? = nil) throws(EncodeError) -> [UInt8] {
        if let failure = HEIFLibrary.setupFailure { throw EncodeError(description: "libheif init: " + failure) }
        guard let context = heif_context_alloc() else { throw EncodeError(description: "heif_context_alloc failed") }
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, codec == .av1 ? heif_compression_AV1 : heif_compression_HEVC, &encoder),
                  "no \(codec) encoder")
        defer { heif_encoder_release(encoder) }
        try check(heif_encoder_set_lossy_quality(encoder, quality), "quality")

        var picture: OpaquePointer?
        try check(heif_image_create(Int32(image.width), Int32(image.height), heif_colorspace_RGB,
                                    alpha == nil ? heif_chroma_interleaved_RGB : heif_chroma_interleaved_RGBA, &picture), "heif_image_create")
        defer { heif_image_release(picture) }
        try check(heif_image_add_plane(picture, heif_channel_interleaved, Int32(image.width), Int32(image.height), 8), "add_plane")
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane(picture, heif_channel_interleaved, &stride) else {
            throw EncodeError(description: "heif_image_get_plane failed")
        }
        let channels = alpha == nil ? 3 : 4
        for y in 0..<image.height {
            for x in 0..<image.width {
                let to = plane + y * Int(stride) + x * channels, from = (y * image.width + x) * 3
                to[0] = image.pixels[from]; to[1] = image.pixels[from + 1]; to[2] = image.pixels[from + 2]
                if let alpha { to[3] = alpha }
            }
        }
        if let iccProfile {
            try check(heif_image_set_raw_color_profile(picture, "prof", iccProfile, iccProfile.count), "ICC profile")
        }

        guard let options = heif_encoding_options_alloc() else { throw EncodeError(description: "heif_encoding_options_alloc failed") }
        defer { heif_encoding_options_free(options) }
        options.pointee.image_orientation = heif_orientation(rawValue: UInt32(orientation))
        var handle: OpaquePointer?
        try check(heif_context_encode_image(context, picture, encoder, options, &handle), "encode")
        defer { heif_image_handle_release(handle) }
        if let thumbnail {
            var thumbnailHandle: OpaquePointer?
            try check(heif_context_encode_thumbnail(context, picture, handle, encoder, options, Int32(thumbnail), &thumbnailHandle), "thumbnail")
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

    private static func check(_ error: heif_error, _ what: String) throws(EncodeError) {
        guard error.code != heif_error_Ok else { return }
        throw EncodeError(description: "libheif \(what): " + (error.message.map { String(cString: $0) } ?? "\(error.code.rawValue)"))
    }
}

/// Where `heif_context_write` puts the file.
private final class HEIFBytes {
    var bytes: [UInt8] = []
}
