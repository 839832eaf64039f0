import AlbumMetadata
import CWebP

/// WebP decoding through libwebp: a still shrunk as it is decoded (libwebp's scaler), into a
/// buffer albumfs allocates from the header's size, so the decoder can make no more than the
/// header said; an animation's first frame through the demuxer's animation decoder (the whole
/// canvas, as viewers show it). Alpha is composited onto white, as `PNGDecoder` does.
enum WebPDecoder {
    /// What the header says of the file, and what decoding it takes.
    struct Plan {
        var width: Int
        var height: Int
        var animated: Bool
        /// The shrink factor a still is decoded at (1 for an animation, which libwebp cannot scale).
        var factor: Int
        var scaledWidth: Int { (width + factor - 1) / factor }
        var scaledHeight: Int { (height + factor - 1) / factor }

        /// The bytes the decode takes besides the file: an animation's canvas twice (the frame
        /// and the one before it, RGBA) and the RGB copy; a still's scaled RGBA output.
        var bytes: Int { animated ? width * height * 11 : scaledWidth * scaledHeight * 4 }
    }

    /// The plan for `data` whose image must cover `minWidth`×`minHeight`; nil sizes refused.
    static func plan(_ data: [UInt8], maxPixels: Int, minWidth: Int, minHeight: Int) throws(ThumbnailError) -> Plan {
        let header = WebPHeader(size: Int64(data.count)) { offset, count in
            let start = Int(min(offset, Int64(data.count)))
            return Array(data[start..<min(data.count, start + count)])
        }
        guard let w = header.width, let h = header.height, w > 0, h > 0 else {
            throw ThumbnailError("not a decodable WebP: no image size in its header")
        }
        guard w * h <= maxPixels else { throw ThumbnailError("WebP of \(w)x\(h) is over the \(maxPixels)-pixel limit") }
        let factor = header.animated ? 1 : max(1, min(w / max(1, minWidth), h / max(1, minHeight)))
        return Plan(width: w, height: h, animated: header.animated, factor: factor)
    }

    /// The image (a still) or its first frame (an animation), as `plan` says.
    /// The corresponding C functions are `WebPDecode` and `WebPAnimDecoderGetNext`.
    static func decode(_ data: [UInt8], _ plan: Plan) throws(ThumbnailError) -> RGBImage {
        plan.animated ? try firstFrame(data, plan) : try still(data, plan)
    }

    private static func still(_ data: [UInt8], _ plan: Plan) throws(ThumbnailError) -> RGBImage {
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw ThumbnailError("libwebp refuses its own version") }
        let status = data.withUnsafeBufferPointer { WebPGetFeatures($0.baseAddress, $0.count, &config.input) }
        guard status == VP8_STATUS_OK else { throw ThumbnailError("not a decodable WebP: \(describe(status))") }
        // The bitstream's size is the decoder's; the buffer below is the header's.
        guard Int(config.input.width) == plan.width, Int(config.input.height) == plan.height else {
            throw ThumbnailError("WebP image of \(config.input.width)x\(config.input.height) where its header says \(plan.width)x\(plan.height)")
        }
        guard config.input.has_animation == 0 else { throw ThumbnailError("WebP animation its header calls a still") }
        let (w, h) = (plan.scaledWidth, plan.scaledHeight)
        if plan.factor > 1 {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(w)
            config.options.scaled_height = Int32(h)
        }
        let hasAlpha = config.input.has_alpha != 0
        let channels = hasAlpha ? 4 : 3
        var pixels = [UInt8](repeating: 0, count: w * h * channels)
        let decoded = pixels.withUnsafeMutableBufferPointer { out in
            config.output.colorspace = hasAlpha ? MODE_RGBA : MODE_RGB
            config.output.is_external_memory = 1
            config.output.width = Int32(w)
            config.output.height = Int32(h)
            config.output.u.RGBA.rgba = out.baseAddress
            config.output.u.RGBA.stride = Int32(w * channels)
            config.output.u.RGBA.size = out.count
            defer { WebPFreeDecBuffer(&config.output) }
            return data.withUnsafeBufferPointer { WebPDecode($0.baseAddress, $0.count, &config) }
        }
        guard decoded == VP8_STATUS_OK else { throw ThumbnailError("WebP decode failed: \(describe(decoded))") }
        return hasAlpha ? onWhite(pixels, width: w, height: h) : RGBImage(width: w, height: h, pixels: pixels)
    }

    private static func firstFrame(_ data: [UInt8], _ plan: Plan) throws(ThumbnailError) -> RGBImage {
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else { throw ThumbnailError("libwebp refuses its own version") }
        options.color_mode = MODE_RGBA
        options.use_threads = 0
        return try data.withUnsafeBufferPointer { buffer throws(ThumbnailError) -> RGBImage in
            var webpData = WebPData(bytes: buffer.baseAddress, size: buffer.count)
            guard let decoder = WebPAnimDecoderNew(&webpData, &options) else {
                throw ThumbnailError("not a decodable WebP animation")
            }
            defer { WebPAnimDecoderDelete(decoder) }
            var info = WebPAnimInfo()
            guard WebPAnimDecoderGetInfo(decoder, &info) != 0 else { throw ThumbnailError("not a decodable WebP animation") }
            guard Int(info.canvas_width) == plan.width, Int(info.canvas_height) == plan.height else {
                throw ThumbnailError("WebP canvas of \(info.canvas_width)x\(info.canvas_height) where its header says \(plan.width)x\(plan.height)")
            }
            var frame: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            guard WebPAnimDecoderGetNext(decoder, &frame, &timestamp) != 0, let frame else {
                throw ThumbnailError("WebP animation's first frame does not decode")
            }
            let rgba = Array(UnsafeBufferPointer(start: frame, count: plan.width * plan.height * 4))
            return onWhite(rgba, width: plan.width, height: plan.height)
        }
    }

    /// RGBA to RGB, alpha composited onto white in place (pixel i moves from 4i to 3i: never
    /// ahead of what is still to be read).
    private static func onWhite(_ rgba: [UInt8], width: Int, height: Int) -> RGBImage {
        var px = rgba
        px.withUnsafeMutableBufferPointer { px in
            for i in 0..<(width * height) {
                let a = UInt32(px[i * 4 + 3])
                for c in 0..<3 { px[i * 3 + c] = UInt8(RGBImage.onWhite(px[i * 4 + c], alpha: a)) }
            }
        }
        px.removeLast(width * height)
        return RGBImage(width: width, height: height, pixels: px)
    }

    private static func describe(_ status: VP8StatusCode) -> String {
        switch status {
        case VP8_STATUS_OUT_OF_MEMORY: "out of memory"
        case VP8_STATUS_INVALID_PARAM: "invalid parameter"
        case VP8_STATUS_BITSTREAM_ERROR: "bitstream error"
        case VP8_STATUS_UNSUPPORTED_FEATURE: "unsupported feature"
        case VP8_STATUS_SUSPENDED: "suspended"
        case VP8_STATUS_USER_ABORT: "aborted"
        case VP8_STATUS_NOT_ENOUGH_DATA: "not enough data (cut short)"
        default: "status \(status.rawValue)"
        }
    }
}
