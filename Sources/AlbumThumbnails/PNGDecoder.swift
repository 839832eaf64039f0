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
                    let a = Int(px[i * 4 + 3])
                    let r = Int(px[i * 4]), g = Int(px[i * 4 + 1]), b = Int(px[i * 4 + 2])
                    px[i * 3] = UInt8((r * a + 255 * (255 - a) + 127) / 255)
                    px[i * 3 + 1] = UInt8((g * a + 255 * (255 - a) + 127) / 255)
                    px[i * 3 + 2] = UInt8((b * a + 255 * (255 - a) + 127) / 255)
                }
            }
            rgb.removeLast(w * h)
        }
        return RGBImage(width: w, height: h, pixels: rgb)
    }

    static func message(_ image: png_image) -> String {
        withUnsafeBytes(of: image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
