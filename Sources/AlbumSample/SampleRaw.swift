/// Camera RAW files for fixtures. DNG: a TIFF structure written by `ExifWriter` (Adobe's DNG is TIFF with
/// `DNGVersion`), as phones and converters write it: IFD0 a reduced-resolution preview
/// (`NewSubFileType` 1; RGB, or a baseline JPEG), the raw data in a SubIFD (16-bit RGGB colour
/// filter array, uncompressed), the EXIF IFD with `DateTimeOriginal`.
public enum SampleRaw {
    /// The preview a DNG carries in IFD0, if any.
    public enum DNGPreview: Sendable {
        case none
        case rgb(SampleImage)
        case jpeg(SampleImage)
    }

    /// A DNG of `sensor` (the scene as stored: turn it for `orientation`, which is only
    /// written), even sides; with no preview, IFD0 holds the raw data itself.
    public static func dng(_ sensor: SampleImage, preview: DNGPreview, orientation: Int = 1,
                           dateTimeOriginal: String? = nil) throws(EncodeError) -> [UInt8] {
        guard sensor.width % 2 == 0, sensor.height % 2 == 0 else { throw EncodeError(description: "a DNG's sides are even") }
        var w = ExifWriter(order: .intel)
        let cfa = cfaValues(sensor)
        let rawIFD = rawEntries(sensor, byteCount: cfa.count)
        var strips: [[UInt8]]
        switch preview {
        case .none:
            w.ifd0 = rawIFD
            strips = [cfa]
        case .rgb(let image), .jpeg(let image):
            let isJPEG = if case .jpeg = preview { true } else { false }
            let bytes = isJPEG ? try SampleJPEG.jpeg(image, quality: 92) : image.pixels
            w.ifd0 = [0x00FE: .long(1), 0x0100: .long(UInt32(image.width)), 0x0101: .long(UInt32(image.height)),
                      0x0102: .shorts([8, 8, 8]), 0x0103: .short(isJPEG ? 7 : 1), 0x0106: .short(isJPEG ? 6 : 2),
                      0x0111: .long(0), 0x0115: .short(3), 0x0116: .long(UInt32(image.height)),
                      0x0117: .long(UInt32(bytes.count)), 0x011C: .short(1), 0x014A: .long(0)]
            strips = [bytes, cfa]
        }
        w.ifd0[0x010F] = .ascii("albumfs")
        w.ifd0[0x0110] = .ascii("Sample DNG")
        w.ifd0[0x0112] = .short(UInt16(orientation))
        w.ifd0[0xC612] = .bytes([1, 4, 0, 0])
        w.ifd0[0xC613] = .bytes([1, 1, 0, 0])
        w.ifd0[0xC614] = .ascii("albumfs Sample DNG")
        // A sensor that sees linear sRGB: XYZ (D65) to camera is XYZ to sRGB, in ten-thousandths.
        w.ifd0[0xC621] = .srationals([32406, -15372, -4986, -9689, 18758, 415, 557, -2040, 10570].flatMap { [$0, 10000] })
        w.ifd0[0xC65A] = .short(21)
        if let dateTimeOriginal { w.exif[0x9003] = .ascii(dateTimeOriginal) }
        return place(w, strips: strips, subIFD: strips.count == 2 ? rawIFD : nil)
    }

    /// The TIFF with each strip after the directories (IFD0's `StripOffsets` to the first, the
    /// SubIFD's to the second), the SubIFD between.
    private static func place(_ writer: ExifWriter, strips: [[UInt8]], subIFD: [UInt16: ExifWriter.Value]?) -> [UInt8] {
        var w = writer
        let end = w.tiff().count + w.tiff().count % 2
        var sub = subIFD ?? [:]
        let subBytes = sub.isEmpty ? 0 : w.ifd(sub, at: end).count
        var at = end + subBytes
        var offsets: [Int] = []
        for s in strips {
            offsets.append(at)
            at += s.count + s.count % 2
        }
        w.ifd0[0x0111] = .long(UInt32(offsets[0]))
        if !sub.isEmpty {
            w.ifd0[0x014A] = .long(UInt32(end))
            sub[0x0111] = .long(UInt32(offsets[1]))
        }
        var out = w.tiff()
        if out.count % 2 == 1 { out.append(0) }
        if !sub.isEmpty { out += w.ifd(sub, at: end) }
        for s in strips { out += s + (s.count % 2 == 1 ? [0] : []) }
        return out
    }

    /// The SubIFD (or IFD0) entries of the raw data; `StripOffsets` set by `place`.
    private static func rawEntries(_ sensor: SampleImage, byteCount: Int) -> [UInt16: ExifWriter.Value] {
        [0x00FE: .long(0), 0x0100: .long(UInt32(sensor.width)), 0x0101: .long(UInt32(sensor.height)),
         0x0102: .short(16), 0x0103: .short(1), 0x0106: .short(32803), 0x0111: .long(0), 0x0115: .short(1),
         0x0116: .long(UInt32(sensor.height)), 0x0117: .long(UInt32(byteCount)), 0x011C: .short(1),
         0x828D: .shorts([2, 2]), 0x828E: .bytes([0, 1, 1, 2]), 0xC61A: .long(0), 0xC61D: .long(65535)]
    }

    /// The sensor's values under an RGGB filter: each photosite the channel of its colour, 16-bit little-endian.
    static func cfaValues(_ image: SampleImage) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: image.width * image.height * 2)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let channel = y % 2 == 0 ? (x % 2 == 0 ? 0 : 1) : (x % 2 == 0 ? 1 : 2)
                let v = UInt16(image.pixels[(y * image.width + x) * 3 + channel]) * 257
                out[(y * image.width + x) * 2] = UInt8(v & 0xFF)
                out[(y * image.width + x) * 2 + 1] = UInt8(v >> 8)
            }
        }
        return out
    }
}
