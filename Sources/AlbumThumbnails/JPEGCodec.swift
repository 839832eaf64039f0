import CTurboJPEG
import Glibc

/// TurboJPEG decompression: a Swift owner of a `tjhandle`, freed in `deinit`.
///
/// The only file that decodes JPEG. It hides the TurboJPEG 2.x (`tj*`) API behind three calls so a
/// move to the 3.x (`tj3*`) API touches nothing else.
final class JPEGDecoder {
    private let handle: tjhandle

    init() throws(ThumbnailError) {
        guard let h = tjInitDecompress() else { throw ThumbnailError("tjInitDecompress failed") }
        handle = h
    }

    deinit { tjDestroy(handle) }

    struct Header {
        var width: Int
        var height: Int
        var colorspace: Int32
    }

    /// The corresponding C function is `tjDecompressHeader3`.
    func header(_ data: [UInt8]) throws(ThumbnailError) -> Header {
        var w: Int32 = 0, h: Int32 = 0, sub: Int32 = 0, cs: Int32 = 0
        let rc = data.withUnsafeBufferPointer { tjDecompressHeader3(handle, $0.baseAddress, UInt($0.count), &w, &h, &sub, &cs) }
        guard rc == 0, w > 0, h > 0 else { throw ThumbnailError("not a decodable JPEG: \(lastError)") }
        return Header(width: Int(w), height: Int(h), colorspace: cs)
    }

    /// The scaling factors libjpeg-turbo can apply in the DCT (`tjGetScalingFactors`), as (num, denom).
    static let scalingFactors: [(Int, Int)] = {
        var n: Int32 = 0
        guard let list = tjGetScalingFactors(&n) else { return [(1, 1)] }
        return (0..<Int(n)).map { (Int(list[$0].num), Int(list[$0].denom)) }
    }()

    /// `TJSCALED`: a dimension after DCT scaling by num/denom (rounded up).
    static func scaled(_ dim: Int, _ f: (Int, Int)) -> Int { (dim * f.0 + f.1 - 1) / f.1 }

    /// Decodes to RGB at the given DCT-scaled size. CMYK and YCCK are decoded as CMYK and
    /// converted here (TurboJPEG 2.x will not convert them to RGB itself).
    /// The corresponding C function is `tjDecompress2`.
    func decode(_ data: [UInt8], header: Header, width: Int, height: Int) throws(ThumbnailError) -> RGBImage {
        let cmyk = header.colorspace == Int32(TJCS_CMYK.rawValue) || header.colorspace == Int32(TJCS_YCCK.rawValue)
        let channels = cmyk ? 4 : 3
        var out = [UInt8](repeating: 0, count: width * height * channels)
        let format = cmyk ? TJPF_CMYK : TJPF_RGB
        let rc = data.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                // Fast upsampling and IDCT: the image is then averaged down at least 2x by the area
                // filter, which hides their small errors (measured: PSNR unchanged, decode ~12% faster).
                tjDecompress2(handle, src.baseAddress, UInt(src.count), dst.baseAddress, Int32(width), 0, Int32(height),
                              Int32(format.rawValue), Int32(TJFLAG_FASTUPSAMPLE | TJFLAG_FASTDCT))
            }
        }
        if rc != 0 {
            // Warnings (a few corrupt bytes) still give an image, as browsers show it; a file cut
            // short or a fatal error does not.
            let message = lastError
            if tjGetErrorCode(handle) == Int32(TJERR_FATAL.rawValue) || message.contains("Premature end") {
                throw ThumbnailError("JPEG decode failed: \(message)")
            }
        }
        guard cmyk else { return RGBImage(width: width, height: height, pixels: out) }
        // Adobe writes inverted CMYK (what libjpeg hands back): R = C·K/255 with the stored values.
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for i in 0..<(width * height) {
            let k = Int(out[i * 4 + 3])
            rgb[i * 3] = UInt8(Int(out[i * 4]) * k / 255)
            rgb[i * 3 + 1] = UInt8(Int(out[i * 4 + 1]) * k / 255)
            rgb[i * 3 + 2] = UInt8(Int(out[i * 4 + 2]) * k / 255)
        }
        return RGBImage(width: width, height: height, pixels: rgb)
    }

    private var lastError: String { String(cString: tjGetErrorStr2(handle)) }
}

/// TurboJPEG compression of thumbnails. The corresponding C function is `tjCompress2`.
final class JPEGEncoder {
    private let handle: tjhandle

    init() throws(ThumbnailError) {
        guard let h = tjInitCompress() else { throw ThumbnailError("tjInitCompress failed") }
        handle = h
    }

    deinit { tjDestroy(handle) }

    func encode(_ image: RGBImage, quality: Int) throws(ThumbnailError) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let rc = image.pixels.withUnsafeBufferPointer { px in
            tjCompress2(handle, px.baseAddress, Int32(image.width), 0, Int32(image.height), Int32(TJPF_RGB.rawValue),
                        &out, &size, Int32(TJSAMP_420.rawValue), Int32(quality), 0)
        }
        defer { tjFree(out) }
        guard rc == 0, let out else { throw ThumbnailError("JPEG encode failed: \(String(cString: tjGetErrorStr2(handle)))") }
        return Array(UnsafeBufferPointer(start: out, count: Int(size)))
    }
}
