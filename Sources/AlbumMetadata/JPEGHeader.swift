import AlbumCore

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
    static let xmpSignature: [UInt8] = Array("http://ns.adobe.com/xap/1.0/\0".utf8)

    /// - Parameters:
    ///   - prefix: the file's first bytes, already read: what lies inside them is not asked of `read`.
    ///   - read: reads `count` bytes at an offset (fewer at end of file).
    public init<E: Error>(prefix: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0),
                          read: (Int64, Int) throws(E) -> [UInt8]) throws(E) {
        var exif: [UInt8]?, xmp: String?, width: Int?, height: Int?
        var cutShort = false
        // Whether the segment before was the EXIF one (or its continuation).
        var afterExif = false
        let end = try JPEGSegmentWalk.walk(prefix: prefix, read: read) { (type, body, bodyLength) throws(E) -> Bool in
            let followsExif = afterExif
            afterExif = false
            switch type {
            case 0xE1:
                // Only the segments wanted are read whole: phones also write extended XMP here
                // (depth maps, motion photo indexes: 64 KiB segments, many of them).
                let (isExif, isXMP, continues) = try Self.bytes(body, min(bodyLength, Self.xmpSignature.count), prefix, read) { signature in
                    (exif == nil && signature.starts(with: Self.exifSignature), xmp == nil && signature.starts(with: Self.xmpSignature),
                     followsExif && Self.continuesExif(signature))
                }
                guard isExif || isXMP || continues else { return true }
                let segment = try read(body, bodyLength)
                if segment.count < bodyLength { cutShort = true }
                if continues, let first = exif {
                    // EXIF too long for one segment, its rest in the next ones (exiftool:
                    // "multi-segment EXIF"), each after an `Exif\0\0` of its own.
                    exif = first + segment.dropFirst(Self.exifSignature.count).prefix(max(0, MetadataLimits.perFile - first.count))
                    afterExif = true
                } else if isExif {
                    exif = segment
                    afterExif = true
                } else {
                    xmp = String(decoding: segment.dropFirst(Self.xmpSignature.count), as: UTF8.self)
                }
            case 0xC0...0xCF where type != 0xC4 && type != 0xC8 && type != 0xCC:
                let size = try Self.bytes(body, 5, prefix, read) { frame in
                    frame.count == 5 ? (h: Int(frame[1]) << 8 | Int(frame[2]), w: Int(frame[3]) << 8 | Int(frame[4])) : nil
                }
                guard let (h, w) = size else {
                    cutShort = true
                    return false
                }
                if width == nil {
                    width = w
                    height = h
                }
            default:
                break
            }
            return true
        }
        self.exif = exif
        self.xmp = xmp
        self.width = width
        self.height = height
        // Cut short after the frame header: its size is known, the image data is not needed.
        truncated = cutShort || (end == .damaged && width == nil)
    }

    /// Whether an APP1 segment starting with `signature` continues the EXIF of the one before:
    /// `Exif\0\0` not followed by a TIFF header (which would start an EXIF block of its own).
    static func continuesExif(_ signature: UnsafeRawBufferPointer) -> Bool {
        guard signature.starts(with: exifSignature), signature.count >= 10 else { return false }
        let order = Array(signature[6..<10])
        return order != [0x4D, 0x4D, 0, 42] && order != [0x49, 0x49, 42, 0]
    }

    /// The bytes at `offset`, from `prefix` when it holds all `count` (no array for them), else
    /// through `read`.
    private static func bytes<T, E: Error>(_ offset: Int64, _ count: Int, _ prefix: UnsafeRawBufferPointer,
                                           _ read: (Int64, Int) throws(E) -> [UInt8],
                                           _ body: (UnsafeRawBufferPointer) -> T) throws(E) -> T {
        if offset >= 0, offset + Int64(count) <= Int64(prefix.count) {
            return body(UnsafeRawBufferPointer(rebasing: prefix[Int(offset)..<Int(offset) + count]))
        }
        let copy = try read(offset, count)
        return copy.withUnsafeBytes(body)
    }
}
