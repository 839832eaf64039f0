/// The parts of a JPEG's header that albumfs reads: EXIF and XMP (APP1) and the frame size.
///
/// Walks the marker segments from the start of the file and stops at the first scan (SOS), so
/// only the header bytes are ever read. (Not at the frame header: some phones write their EXIF
/// segment after it, between the frame and the scan.)
public struct JPEGHeader {
    /// The APP1 Exif payload, starting with `Exif\0\0` (what libexif expects).
    public var exif: [UInt8]?
    /// The XMP packet text.
    public var xmp: String?
    public var width: Int?
    public var height: Int?
    /// Whether the header ended before a frame header was found (a truncated or odd file).
    public var truncated = false

    static let exifSignature: [UInt8] = Array("Exif\0\0".utf8)
    /// Fill bytes skipped before one marker at most (then the header counts as damaged).
    static let maxFillBytes = 4096
    static let xmpSignature: [UInt8] = Array("http://ns.adobe.com/xap/1.0/\0".utf8)

    /// - Parameter read: reads `count` bytes at an offset (fewer at end of file).
    public init(read: (Int64, Int) throws -> [UInt8]) rethrows {
        var offset: Int64 = 2  // after SOI
        // A real header has a few dozen segments; the bound stops a crafted file from looping.
        for _ in 0..<512 {
            var marker = try read(offset, 4)
            // Fill bytes (0xFF 0xFF …) may precede a marker: encoders write none or a few. A run
            // of thousands is no header but erased flash (a damaged card reads as 0xFF): each
            // byte was a read of its own, and 4 MB of them took a reader 2 s.
            var fill = 0
            while marker.count >= 2, marker[0] == 0xFF, marker[1] == 0xFF, fill < Self.maxFillBytes {
                offset += 1
                fill += 1
                marker = try read(offset, 4)
            }
            // Cut short after the frame header: its size is known, the image data is not needed.
            guard marker.count == 4, marker[0] == 0xFF, marker[1] != 0xFF, let length = marker.be16(2) else { truncated = width == nil; return }
            let type = marker[1]
            if type == 0xDA || type == 0xD9 { return }  // SOS / EOI: no more header
            if (0xD0...0xD7).contains(type) || type == 0x01 { offset += 2; continue }  // no-length markers
            guard length >= 2 else { truncated = width == nil; return }
            let body = offset + 4
            let bodyLength = length - 2
            switch type {
            case 0xE1:
                // Only the segments wanted are read whole: phones also write extended XMP here
                // (depth maps, motion photo indexes: 64 KiB segments, many of them).
                let signature = try read(body, min(bodyLength, Self.xmpSignature.count))
                let isExif = exif == nil && signature.starts(with: Self.exifSignature, at: 0)
                let isXMP = xmp == nil && signature.starts(with: Self.xmpSignature, at: 0)
                guard isExif || isXMP else { break }
                let segment = try read(body, bodyLength)
                if segment.count < bodyLength { truncated = true }
                if isExif {
                    exif = segment
                } else {
                    xmp = String(decoding: segment.dropFirst(Self.xmpSignature.count), as: UTF8.self)
                }
            case 0xC0...0xCF where type != 0xC4 && type != 0xC8 && type != 0xCC:
                let frame = try read(body, 5)
                guard frame.count == 5, let h = frame.be16(1), let w = frame.be16(3) else { truncated = true; return }
                if width == nil {
                    width = w
                    height = h
                }
            default:
                break
            }
            offset = body + Int64(bodyLength)
        }
    }
}
