import AlbumMetadata
import CJXL
import Glibc

/// libjxl, loaded once for the process on first use (CJXL.h says why). Every user of libjxl
/// (renders here, the sample's encoder) asks it first; a render worker asks before it enters its
/// sandbox, where no library can be loaded.
public enum JXLLibrary {
    /// Nil once libjxl is ready; else why not. (A `static let` is initialised once, whichever
    /// thread comes first.)
    public static let setupFailure: String? = albumfs_jxl_load().map { String(cString: $0) }
}

/// JPEG XL decoding through libjxl: the first frame (an animation's composed first frame), upright
/// (libjxl applies the codestream's orientation), 8-bit RGB or RGBA composited onto white, into a
/// buffer albumfs allocates from the header's size, after libjxl's own reading of the size agrees
/// with the header's. Single-threaded: no parallel runner (a render worker renders one at a time).
enum JXLDecoder {
    /// What the header says of the file, and what decoding it takes.
    struct Plan {
        /// The upright size, the image's as decoded.
        var width: Int
        var height: Int

        /// The bytes the decode takes besides the file: libjxl's frame in 32-bit floats, 3
        /// channels, twice (its passes and its colour conversion), the RGBA output and the RGB copy.
        var bytes: Int { width * height * (24 + 4 + 3) }
    }

    /// The plan for `data`; a file whose header gives no size, or too many pixels, is refused.
    static func plan(_ data: [UInt8], maxPixels: Int) throws(ThumbnailError) -> Plan {
        let header = JXLHeader(size: Int64(data.count)) { offset, count in
            let start = Int(min(offset, Int64(data.count)))
            return Array(data[start..<min(data.count, start + count)])
        }
        guard let w = header.width, let h = header.height, w > 0, h > 0 else {
            throw ThumbnailError("not a decodable JPEG XL image: no image size in its header")
        }
        guard w.multipliedReportingOverflow(by: h).partialValue <= maxPixels, w <= maxPixels, h <= maxPixels else {
            throw ThumbnailError("JPEG XL image of \(w)x\(h) is over the \(maxPixels)-pixel limit")
        }
        guard !header.truncated else { throw ThumbnailError("JPEG XL image cut short: its codestream ends early") }
        return Plan(width: w, height: h)
    }

    /// The image's first frame, as `plan` says.
    /// The corresponding C functions are `JxlDecoderProcessInput` and `JxlDecoderSetImageOutBuffer`.
    static func decode(_ data: [UInt8], _ plan: Plan) throws(ThumbnailError) -> RGBImage {
        if let failure = JXLLibrary.setupFailure { throw ThumbnailError("libjxl cannot be loaded: \(failure)") }
        guard let decoder = JxlDecoderCreate(nil) else { throw ThumbnailError("libjxl could not make a decoder") }
        defer { JxlDecoderDestroy(decoder) }
        let events = Int32(bitPattern: JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_FULL_IMAGE.rawValue)
        guard JxlDecoderSubscribeEvents(decoder, events) == JXL_DEC_SUCCESS else { throw ThumbnailError("libjxl refuses its events") }
        return try data.withUnsafeBufferPointer { input throws(ThumbnailError) -> RGBImage in
            guard JxlDecoderSetInput(decoder, input.baseAddress, input.count) == JXL_DEC_SUCCESS else {
                throw ThumbnailError("libjxl refuses its input")
            }
            JxlDecoderCloseInput(decoder)
            var output = Output(plan)
            defer { output.pixels?.deallocate() }
            // Basic info, the output buffer, the image: a few events; more is a decoder gone astray.
            for _ in 0..<8 {
                let status = JxlDecoderProcessInput(decoder)
                switch status {
                case JXL_DEC_BASIC_INFO: try output.check(decoder)
                case JXL_DEC_NEED_IMAGE_OUT_BUFFER: try output.allocate(decoder)
                case JXL_DEC_FULL_IMAGE: return try output.image()
                case JXL_DEC_NEED_MORE_INPUT: throw ThumbnailError("JPEG XL image cut short")
                case JXL_DEC_ERROR: throw ThumbnailError("not a decodable JPEG XL image")
                default: throw ThumbnailError("JPEG XL decode ended without an image (status \(status.rawValue))")
                }
            }
            throw ThumbnailError("JPEG XL decode ended without an image")
        }
    }

    /// The buffer libjxl decodes into, sized from the header once libjxl's size agrees with it.
    private struct Output {
        let plan: Plan
        var format = JxlPixelFormat(num_channels: 3, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        var pixels: UnsafeMutableBufferPointer<UInt8>?
        var checked = false

        init(_ plan: Plan) { self.plan = plan }

        /// The codestream's size against the header's; RGBA when the image has alpha. (libjxl
        /// gives the size upright, as it turns the image.)
        mutating func check(_ decoder: OpaquePointer) throws(ThumbnailError) {
            var info = JxlBasicInfo()
            guard JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS else { throw ThumbnailError("libjxl gives no basic info") }
            guard Int(info.xsize) == plan.width, Int(info.ysize) == plan.height else {
                throw ThumbnailError("JPEG XL image of \(info.xsize)x\(info.ysize) where its header says \(plan.width)x\(plan.height)")
            }
            format.num_channels = info.alpha_bits > 0 ? 4 : 3
            checked = true
        }

        mutating func allocate(_ decoder: OpaquePointer) throws(ThumbnailError) {
            guard checked, pixels == nil else { throw ThumbnailError("libjxl asks for an output buffer out of turn") }
            var size = 0
            let expected = plan.width * plan.height * Int(format.num_channels)
            guard JxlDecoderImageOutBufferSize(decoder, &format, &size) == JXL_DEC_SUCCESS, size == expected else {
                throw ThumbnailError("libjxl asks for \(size) bytes of output where the header's size makes \(expected)")
            }
            let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: size)
            pixels = buffer
            guard JxlDecoderSetImageOutBuffer(decoder, &format, buffer.baseAddress, buffer.count) == JXL_DEC_SUCCESS else {
                throw ThumbnailError("libjxl refuses its output buffer")
            }
        }

        func image() throws(ThumbnailError) -> RGBImage {
            guard let pixels else { throw ThumbnailError("libjxl made an image without its output buffer") }
            let (w, h) = (plan.width, plan.height)
            guard format.num_channels == 4 else { return RGBImage(width: w, height: h, pixels: Array(pixels)) }
            var rgb = [UInt8](repeating: 0, count: w * h * 3)
            for i in 0..<(w * h) {
                let a = UInt32(pixels[i * 4 + 3])
                for c in 0..<3 { rgb[i * 3 + c] = UInt8(RGBImage.onWhite(pixels[i * 4 + c], alpha: a)) }
            }
            return RGBImage(width: w, height: h, pixels: rgb)
        }
    }
}
