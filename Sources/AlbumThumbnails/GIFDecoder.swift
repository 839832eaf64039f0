import CGIF

/// GIF decoding through giflib's low-level API: records are read up to the first image only (an
/// animation's later frames are never decoded), its rows placed on the logical screen (the
/// header's size, allocated from it: a frame reaching past the screen is cut to it), interlaced
/// rows in their passes' order. Pixels the image leaves out, and its transparent colour, are white,
/// as a PNG's transparency is composited.
enum GIFDecoder {
    /// The logical screen's size, from the header.
    static func size(_ data: [UInt8]) -> (width: Int, height: Int)? {
        guard data.count >= 10 else { return nil }
        return (Int(data[6]) | Int(data[7]) << 8, Int(data[8]) | Int(data[9]) << 8)
    }

    /// What a decode takes besides the file: the screen in RGB and one row of colour indices.
    static func bytes(width: Int, height: Int) -> Int { width * height * 3 + width }

    /// The bytes giflib reads from, and how far it has read.
    private final class Source {
        let data: [UInt8]
        var at = 0
        init(_ data: [UInt8]) { self.data = data }
    }

    /// The first image on the screen. The corresponding C functions are `DGifOpen`,
    /// `DGifGetRecordType`, `DGifGetImageDesc` and `DGifGetLine`.
    static func decode(_ data: [UInt8], width: Int, height: Int) throws(ThumbnailError) -> RGBImage {
        let source = Source(data)
        var error: Int32 = 0
        let opened = withExtendedLifetime(source) {
            DGifOpen(Unmanaged.passUnretained(source).toOpaque(), { gif, buffer, count in
                guard let gif, let buffer, count > 0 else { return 0 }
                let source = Unmanaged<Source>.fromOpaque(gif.pointee.UserData).takeUnretainedValue()
                let n = min(Int(count), source.data.count - source.at)
                source.data.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + source.at, count: n) }
                source.at += n
                return Int32(n)
            }, &error)
        }
        guard let gif = opened else { throw ThumbnailError("not a decodable GIF: \(message(error))") }
        defer { withExtendedLifetime(source) { _ = DGifCloseFile(gif, nil) } }
        guard Int(gif.pointee.SWidth) == width, Int(gif.pointee.SHeight) == height else {
            throw ThumbnailError("GIF screen of \(gif.pointee.SWidth)x\(gif.pointee.SHeight) where its header says \(width)x\(height)")
        }
        var transparent: Int? = nil
        while true {
            var record = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(gif, &record) == GIF_OK else { throw failure(gif) }
            switch record {
            case EXTENSION_RECORD_TYPE:
                var code: Int32 = 0
                var block: UnsafeMutablePointer<GifByteType>?
                guard DGifGetExtension(gif, &code, &block) == GIF_OK else { throw failure(gif) }
                // A graphics control extension (its length, 4, first): bit 0 of its flags says
                // whether the colour index in its fourth byte is transparent.
                if code == GRAPHICS_EXT_FUNC_CODE, let block, block[0] >= 4, block[1] & 1 != 0 { transparent = Int(block[4]) }
                while block != nil {
                    guard DGifGetExtensionNext(gif, &block) == GIF_OK else { throw failure(gif) }
                }
            case IMAGE_DESC_RECORD_TYPE:
                guard DGifGetImageDesc(gif) == GIF_OK else { throw failure(gif) }
                return try firstImage(gif, width: width, height: height, transparent: transparent)
            case TERMINATE_RECORD_TYPE:
                throw ThumbnailError("GIF without an image")
            default:
                throw ThumbnailError("not a decodable GIF: record \(record.rawValue)")
            }
        }
    }

    private static func firstImage(_ gif: UnsafeMutablePointer<GifFileType>, width: Int, height: Int, transparent: Int?) throws(ThumbnailError) -> RGBImage {
        let desc = gif.pointee.Image
        let (left, top, w, h) = (Int(desc.Left), Int(desc.Top), Int(desc.Width), Int(desc.Height))
        guard w > 0, h > 0, w <= 65535, h <= 65535 else { throw ThumbnailError("GIF image of \(w)x\(h)") }
        guard let map = desc.ColorMap ?? gif.pointee.SColorMap, let colours = map.pointee.Colors else {
            throw ThumbnailError("GIF without a colour table")
        }
        let count = Int(map.pointee.ColorCount)
        var pixels = [UInt8](repeating: 255, count: width * height * 3)
        var row = [GifPixelType](repeating: 0, count: w)
        // Interlaced rows come in four passes: every 8th from 0, every 8th from 4, every 4th from 2, every 2nd from 1.
        let order: [(start: Int, step: Int)] = desc.Interlace ? [(0, 8), (4, 8), (2, 4), (1, 2)] : [(0, 1)]
        for (start, step) in order {
            for y in stride(from: start, to: h, by: step) {
                let read = row.withUnsafeMutableBufferPointer { DGifGetLine(gif, $0.baseAddress, Int32(w)) }
                guard read == GIF_OK else { throw failure(gif) }
                let screenY = top + y
                guard screenY < height else { continue }
                for x in 0..<min(w, width - left) where left + x >= 0 {
                    let index = Int(row[x])
                    guard index != transparent, index < count else { continue }
                    let c = colours[index]
                    let at = (screenY * width + left + x) * 3
                    pixels[at] = c.Red; pixels[at + 1] = c.Green; pixels[at + 2] = c.Blue
                }
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    private static func failure(_ gif: UnsafeMutablePointer<GifFileType>) -> ThumbnailError {
        ThumbnailError("GIF decode failed: \(message(gif.pointee.Error))")
    }

    private static func message(_ code: Int32) -> String {
        GifErrorString(code).map { String(cString: $0) } ?? "giflib error \(code)"
    }
}
