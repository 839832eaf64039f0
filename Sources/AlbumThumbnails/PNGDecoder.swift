import CPNG

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
        let w = Int(image.width), h = Int(image.height)
        guard w > 0, h > 0, w * h <= maxPixels else {
            throw ThumbnailError("PNG of \(w)x\(h) is over the \(maxPixels)-pixel limit")
        }
        image.format = UInt32(PNG_FORMAT_RGB | PNG_FORMAT_FLAG_ALPHA)
        var rgba = [UInt8](repeating: 0, count: w * h * 4)
        let done = rgba.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, Int32(w * 4), nil) }
        guard done != 0 else { throw ThumbnailError("PNG decode failed: \(message(image))") }
        var rgb = [UInt8](repeating: 0, count: w * h * 3)
        for i in 0..<(w * h) {
            let a = Int(rgba[i * 4 + 3])
            for c in 0..<3 {
                rgb[i * 3 + c] = UInt8((Int(rgba[i * 4 + c]) * a + 255 * (255 - a) + 127) / 255)
            }
        }
        return RGBImage(width: w, height: h, pixels: rgb)
    }

    static func message(_ image: png_image) -> String {
        withUnsafeBytes(of: image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
