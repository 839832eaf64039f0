import CGIF

/// GIF encoding for fixtures (giflib's `EGif…`), colours mapped onto a 6x7x6 cube.
public enum SampleGIF {
    /// A GIF89a of `frames` (one: a still; more: an animation, 100 ms each), every frame the
    /// screen's size; `interlaced` writes the rows in the four passes.
    /// The corresponding C functions are `EGifOpen`, `EGifPutScreenDesc`, `EGifPutImageDesc` and `EGifPutLine`.
    public static func gif(_ frames: [SampleImage], interlaced: Bool = false) throws(EncodeError) -> [UInt8] {
        guard let first = frames.first else { throw EncodeError(description: "no frames") }
        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        var error: Int32 = 0
        guard let gif = EGifOpen(Unmanaged.passUnretained(sink).toOpaque(), { gif, buffer, count in
            guard let gif, let buffer else { return 0 }
            Unmanaged<Sink>.fromOpaque(gif.pointee.UserData).takeUnretainedValue().bytes.append(contentsOf: UnsafeBufferPointer(start: buffer, count: Int(count)))
            return count
        }, &error) else { throw EncodeError(description: "EGifOpen: \(error)") }
        var closed = false
        defer { if !closed { _ = EGifCloseFile(gif, nil) } }
        EGifSetGifVersion(gif, true)
        var cube = [GifColorType]()
        for r in 0..<6 { for g in 0..<7 { for b in 0..<6 { cube.append(GifColorType(Red: UInt8(r * 51), Green: UInt8(g * 255 / 6), Blue: UInt8(b * 51))) } } }
        while cube.count < 256 { cube.append(GifColorType(Red: 0, Green: 0, Blue: 0)) }
        guard let map = cube.withUnsafeBufferPointer({ GifMakeMapObject(256, $0.baseAddress) }) else { throw EncodeError(description: "GifMakeMapObject") }
        defer { GifFreeMapObject(map) }
        let (w, h) = (first.width, first.height)
        guard EGifPutScreenDesc(gif, Int32(w), Int32(h), 8, 0, map) == GIF_OK else { throw EncodeError(description: "EGifPutScreenDesc") }
        for frame in frames {
            // Graphics control: no disposal, 100 ms, no transparency.
            var control: [UInt8] = [0, 10, 0, 0]
            guard EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, 4, &control) == GIF_OK else { throw EncodeError(description: "EGifPutExtension") }
            guard EGifPutImageDesc(gif, 0, 0, Int32(w), Int32(h), interlaced, nil) == GIF_OK else { throw EncodeError(description: "EGifPutImageDesc") }
            let rows = interlaced ? [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { stride(from: $0.0, to: h, by: $0.1) } : Array(0..<h)
            for y in rows {
                var line = (0..<w).map { x -> GifPixelType in
                    let i = (y * w + x) * 3
                    let (r, g, b) = (Int(frame.pixels[i]), Int(frame.pixels[i + 1]), Int(frame.pixels[i + 2]))
                    return GifPixelType(((r * 5 + 127) / 255) * 42 + ((g * 6 + 127) / 255) * 6 + (b * 5 + 127) / 255)
                }
                guard EGifPutLine(gif, &line, Int32(w)) == GIF_OK else { throw EncodeError(description: "EGifPutLine") }
            }
        }
        closed = true
        guard EGifCloseFile(gif, &error) == GIF_OK else { throw EncodeError(description: "EGifCloseFile: \(error)") }
        return sink.bytes
    }
}
