import AlbumMetadata
import CTIFF

/// TIFF decoding through libtiff's RGBA interface (`TIFFRGBAImage`: every photometric kind,
/// bit depth and compression libtiff reads, to 8-bit RGBA), of the first image only, from the file
/// in memory (`TIFFClientOpen` over albumfs's own buffer: the worker opens nothing). Rows come
/// in stored order (the requested orientation is the file's own), so the EXIF Orientation the
/// scan read from the same IFD0 is applied once, by the pipeline. Alpha is composited onto white.
enum TIFFDecoder {
    /// The bytes libtiff reads from, and where it is.
    private final class Source {
        let data: [UInt8]
        var at = 0
        init(_ data: [UInt8]) { self.data = data }
    }

    /// The first image's size, as its IFD0 says (the scan's reader).
    static func size(_ data: [UInt8]) -> (width: Int, height: Int)? {
        let header = TIFFHeader(size: Int64(data.count)) { offset, count in
            let start = Int(min(offset, Int64(data.count)))
            return Array(data[start..<min(data.count, start + count)])
        }
        guard let w = header.width, let h = header.height else { return nil }
        return (w, h)
    }

    /// The first image, which the header says is `width`×`height`.
    /// The corresponding C functions are `TIFFClientOpen`, `TIFFRGBAImageBegin` and `TIFFRGBAImageGet`.
    static func decode(_ data: [UInt8], width: Int, height: Int) throws(ThumbnailError) -> RGBImage {
        // (libtiff's messages would go to a stderr that is /dev/null; the error is said here.)
        TIFFSetErrorHandler(nil)
        TIFFSetWarningHandler(nil)
        let source = Source(data)
        return try withExtendedLifetime(source) { () throws(ThumbnailError) -> RGBImage in
            let handle = Unmanaged.passUnretained(source).toOpaque()
            func of(_ h: thandle_t?) -> Source { Unmanaged<Source>.fromOpaque(h!).takeUnretainedValue() }
            guard let tif = TIFFClientOpen("original", "rm", handle, { h, buffer, count in
                let s = Unmanaged<Source>.fromOpaque(h!).takeUnretainedValue()
                let n = max(0, min(Int(count), s.data.count - s.at))
                s.data.withUnsafeBytes { buffer!.copyMemory(from: $0.baseAddress! + s.at, byteCount: n) }
                s.at += n
                return tmsize_t(n)
            }, { _, _, _ in -1 }, { h, offset, whence in
                let s = Unmanaged<Source>.fromOpaque(h!).takeUnretainedValue()
                let base = whence == SEEK_CUR ? s.at : whence == SEEK_END ? s.data.count : 0
                let (to, overflow) = base.addingReportingOverflow(Int(truncatingIfNeeded: Int64(bitPattern: offset)))
                guard !overflow, to >= 0 else { return toff_t.max }
                s.at = to
                return toff_t(to)
            }, { _ in 0 }, { h in toff_t(Unmanaged<Source>.fromOpaque(h!).takeUnretainedValue().data.count) },
            { _, _, _ in 0 }, { _, _, _ in }) else {
                throw ThumbnailError("not a decodable TIFF")
            }
            defer { TIFFClose(tif) }
            var image = TIFFRGBAImage()
            var message = [CChar](repeating: 0, count: 1024)
            guard TIFFRGBAImageOK(tif, &message) != 0, TIFFRGBAImageBegin(&image, tif, 0, &message) != 0 else {
                throw ThumbnailError("not a decodable TIFF: \(String(cString: message))")
            }
            defer { TIFFRGBAImageEnd(&image) }
            guard Int(image.width) == width, Int(image.height) == height else {
                throw ThumbnailError("TIFF image of \(image.width)x\(image.height) where its header says \(width)x\(height)")
            }
            image.req_orientation = image.orientation
            var raster = [UInt32](repeating: 0, count: width * height)
            let got = raster.withUnsafeMutableBufferPointer { TIFFRGBAImageGet(&image, $0.baseAddress, UInt32(width), UInt32(height)) }
            guard got != 0 else { throw ThumbnailError("TIFF decode failed") }
            var rgb = [UInt8](repeating: 0, count: width * height * 3)
            for i in 0..<(width * height) {
                // (ABGR packed: red in the low byte.)
                let p = raster[i], a = p >> 24
                rgb[i * 3] = UInt8(RGBImage.onWhite(UInt8(p & 0xFF), alpha: a))
                rgb[i * 3 + 1] = UInt8(RGBImage.onWhite(UInt8(p >> 8 & 0xFF), alpha: a))
                rgb[i * 3 + 2] = UInt8(RGBImage.onWhite(UInt8(p >> 16 & 0xFF), alpha: a))
            }
            return RGBImage(width: width, height: height, pixels: rgb)
        }
    }
}
