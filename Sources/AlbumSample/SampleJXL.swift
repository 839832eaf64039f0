import AlbumThumbnails
import CJXL

/// JPEG XL encoding for fixtures (libjxl's encoder): the bare codestream, or the container with
/// the `Exif` and `xml ` boxes cameras and editors add, stored as they are or Brotli-compressed.
public enum SampleJXL {
    /// Encodes a JPEG XL image of `image` as stored, with the codestream's `orientation` (1–8:
    /// libjxl's decoder turns it upright). The container is written when there are boxes:
    /// `exifTIFF` (TIFF data, behind the 4-byte offset the box starts with) and `xmp`, in `brob`
    /// boxes when `compressBoxes`.
    /// The corresponding C functions are `JxlEncoderAddImageFrame`, `JxlEncoderAddBox` and
    /// `JxlEncoderProcessOutput`.
    public static func jxl(_ image: SampleImage, lossless: Bool = false, orientation: Int = 1, exifTIFF: [UInt8]? = nil,
                           xmp: String? = nil, compressBoxes: Bool = false) throws(EncodeError) -> [UInt8] {
        if let failure = JXLLibrary.setupFailure { throw EncodeError(description: "libjxl: " + failure) }
        guard let encoder = JxlEncoderCreate(nil) else { throw EncodeError(description: "JxlEncoderCreate failed") }
        defer { JxlEncoderDestroy(encoder) }
        var boxes: [(String, [UInt8])] = []
        if let exifTIFF { boxes.append(("Exif", [0, 0, 0, 0] + exifTIFF)) }
        if let xmp { boxes.append(("xml ", Array(xmp.utf8))) }
        if !boxes.isEmpty {
            try check(JxlEncoderUseContainer(encoder, 1), "JxlEncoderUseContainer")
            try check(JxlEncoderUseBoxes(encoder), "JxlEncoderUseBoxes")
        }
        try describe(image, lossless: lossless, orientation: orientation, to: encoder)
        for (type, contents) in boxes {
            let added = Array(type.utf8).map { CChar(bitPattern: $0) }.withUnsafeBufferPointer { type in
                JxlEncoderAddBox(encoder, type.baseAddress, contents, contents.count, compressBoxes ? 1 : 0)
            }
            try check(added, "JxlEncoderAddBox \(type)")
        }
        JxlEncoderCloseInput(encoder)
        return try output(encoder)
    }

    /// The image's size, colours (sRGB, 8 bits) and orientation, then its one frame.
    private static func describe(_ image: SampleImage, lossless: Bool, orientation: Int, to encoder: OpaquePointer) throws(EncodeError) {
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(image.width)
        info.ysize = UInt32(image.height)
        info.bits_per_sample = 8
        info.num_color_channels = 3
        info.uses_original_profile = lossless ? 1 : 0
        info.orientation = JxlOrientation(rawValue: UInt32(orientation))
        try check(JxlEncoderSetBasicInfo(encoder, &info), "JxlEncoderSetBasicInfo")
        var colour = JxlColorEncoding()
        JxlColorEncodingSetToSRGB(&colour, 0)
        try check(JxlEncoderSetColorEncoding(encoder, &colour), "JxlEncoderSetColorEncoding")
        guard let settings = JxlEncoderFrameSettingsCreate(encoder, nil) else { throw EncodeError(description: "JxlEncoderFrameSettingsCreate failed") }
        if lossless {
            try check(JxlEncoderSetFrameLossless(settings, 1), "JxlEncoderSetFrameLossless")
        } else {
            try check(JxlEncoderSetFrameDistance(settings, 1), "JxlEncoderSetFrameDistance")
        }
        var format = JxlPixelFormat(num_channels: 3, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        let added = image.pixels.withUnsafeBytes { JxlEncoderAddImageFrame(settings, &format, $0.baseAddress, $0.count) }
        try check(added, "JxlEncoderAddImageFrame")
    }

    /// Everything the encoder makes, in chunks of 64 KiB.
    private static func output(_ encoder: OpaquePointer) throws(EncodeError) -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            var status = JXL_ENC_ERROR
            let made = chunk.withUnsafeMutableBufferPointer { buffer in
                var next = buffer.baseAddress
                var available = buffer.count
                status = JxlEncoderProcessOutput(encoder, &next, &available)
                return buffer.count - available
            }
            out += chunk[0..<made]
            if status == JXL_ENC_SUCCESS { return out }
            guard status == JXL_ENC_NEED_MORE_OUTPUT else { throw EncodeError(description: "JxlEncoderProcessOutput failed") }
        }
    }

    private static func check(_ status: JxlEncoderStatus, _ call: String) throws(EncodeError) {
        guard status == JXL_ENC_SUCCESS else { throw EncodeError(description: "\(call) failed") }
    }
}
