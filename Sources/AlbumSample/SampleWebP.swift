import CWebP

/// WebP encoding for fixtures (libwebp's simple encoder), and the extended container by hand:
/// `VP8X` with the `EXIF` and `XMP ` chunks phones and editors add, and an animation's frames.
public enum SampleWebP {
    /// Encodes a WebP: the bare `VP8 `/`VP8L` file when there is no metadata, else the extended
    /// container with `EXIF` (TIFF data, as the specification says) and `XMP ` after the image.
    /// The corresponding C functions are `WebPEncodeRGB` and `WebPEncodeLosslessRGB`.
    public static func webp(_ image: SampleImage, lossless: Bool = false, exifTIFF: [UInt8]? = nil, xmp: String? = nil) throws(EncodeError) -> [UInt8] {
        let bare = try bareWebP(image, lossless: lossless)
        guard exifTIFF != nil || xmp != nil else { return bare }
        let flags: UInt8 = (exifTIFF != nil ? 0x08 : 0) | (xmp != nil ? 0x04 : 0)
        var chunks = webpChunk("VP8X", vp8x(flags: flags, image.width, image.height)) + Array(bare[12...])
        if let exifTIFF { chunks += webpChunk("EXIF", exifTIFF) }
        if let xmp { chunks += webpChunk("XMP ", Array(xmp.utf8)) }
        return riff(chunks)
    }

    /// An animated WebP of `frames` (each the canvas's size, 100 ms), the first frame first: what
    /// the thumbnail shows.
    public static func animatedWebP(_ frames: [SampleImage]) throws(EncodeError) -> [UInt8] {
        guard let first = frames.first else { throw EncodeError(description: "no frames") }
        var chunks = webpChunk("VP8X", vp8x(flags: 0x02, first.width, first.height))
        // Background colour (white), loop forever.
        chunks += webpChunk("ANIM", [255, 255, 255, 255, 0, 0])
        for frame in frames {
            let image = try bareWebP(frame, lossless: false)
            // Offset 0,0, the frame's size less one, 100 ms, no blending, no disposal.
            var header = le24(0) + le24(0) + le24(frame.width - 1) + le24(frame.height - 1) + le24(100)
            header.append(0x02)
            chunks += webpChunk("ANMF", header + Array(image[12...]))
        }
        return riff(chunks)
    }

    static func bareWebP(_ image: SampleImage, lossless: Bool) throws(EncodeError) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        let stride = Int32(image.width * 3)
        let size = image.pixels.withUnsafeBufferPointer { px in
            lossless ? WebPEncodeLosslessRGB(px.baseAddress, Int32(image.width), Int32(image.height), stride, &output)
                : WebPEncodeRGB(px.baseAddress, Int32(image.width), Int32(image.height), stride, 90, &output)
        }
        guard size > 0, let output else { throw EncodeError(description: "WebPEncodeRGB failed") }
        defer { WebPFree(output) }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    static func vp8x(flags: UInt8, _ width: Int, _ height: Int) -> [UInt8] {
        [flags, 0, 0, 0] + le24(width - 1) + le24(height - 1)
    }

    /// A RIFF chunk: type, little-endian length, payload padded to an even length.
    public static func webpChunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        Array(type.utf8) + le32(payload.count) + payload + (payload.count % 2 == 1 ? [0] : [])
    }

    static func riff(_ chunks: [UInt8]) -> [UInt8] {
        Array("RIFF".utf8) + le32(chunks.count + 4) + Array("WEBP".utf8) + chunks
    }

    static func le24(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF)] }
    static func le32(_ v: Int) -> [UInt8] { le24(v) + [UInt8(v >> 24 & 0xFF)] }
}
