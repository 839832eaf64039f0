/// The parts of a WebP file that albumfs reads: its size and its `EXIF` and `XMP ` chunks.
///
/// A WebP file is a RIFF container (`RIFF` size `WEBP`, then chunks: a four-letter type, a
/// little-endian 32-bit length, the payload padded to an even length). A simple file holds one
/// `VP8 ` (lossy) or `VP8L` (lossless) chunk; an extended one starts with `VP8X`, whose flags say
/// whether an animation, EXIF or XMP follow, and whose canvas is the image's size. The metadata
/// chunks come after the image data (Google's container specification), so the chunks are walked
/// by their lengths, the image data never read.
public struct WebPHeader {
    public var width: Int?
    public var height: Int?
    /// The `EXIF` chunk's TIFF data, prefixed with `Exif\0\0` for libexif.
    public var exif: [UInt8]?
    public var xmp: String?
    public var truncated = false
    /// Whether `VP8X` says the file is an animation (its first frame is its thumbnail).
    public var animated = false
    /// Whether the `EXIF` chunk was over the per-file cap: read only as far as it.
    public var exifCut = false
    /// Whether the `XMP ` chunk was over what was left of the per-file cap: skipped.
    public var xmpOverCap = false

    /// How many leading bytes tell a WebP file: `RIFF`, a length, `WEBP`.
    public static let signatureLength = 12
    /// Whether `b` starts like a WebP file.
    public static func isWebP(_ b: some Collection<UInt8>) -> Bool {
        let head = Array(b.prefix(signatureLength))
        return head.count == signatureLength && head[0..<4].elementsEqual("RIFF".utf8) && head[8..<12].elementsEqual("WEBP".utf8)
    }

    /// More chunks than an animation of a few thousand frames are not walked.
    static let mostChunks = 8192

    /// - Parameters:
    ///   - size: the file's length in bytes.
    ///   - read: `(offset, count)` → the bytes there (fewer at the end of the file).
    public init(size: Int64, read: (Int64, Int) throws -> [UInt8]) rethrows {
        var offset: Int64 = 12
        var budget = MetadataLimits.perFile
        // What is still to be found: the size, and the metadata `VP8X` announces.
        var wantsExif = false, wantsXMP = false
        for _ in 0..<Self.mostChunks {
            if width != nil, !wantsExif, !wantsXMP { return }
            let head = try read(offset, 8)
            guard head.count == 8 else { truncated = true; return }
            let type = String(decoding: head[0..<4], as: UTF8.self)
            let length = Int(Self.le32(head, 4))
            let body = offset + 8
            guard body + Int64(length) <= size else { truncated = true; return }
            switch type {
            case "VP8X":
                let p = try read(body, 10)
                guard p.count == 10 else { truncated = true; return }
                animated = p[0] & 0x02 != 0
                wantsXMP = p[0] & 0x04 != 0
                wantsExif = p[0] & 0x08 != 0
                width = Self.le24(p, 4) + 1
                height = Self.le24(p, 7) + 1
            case "VP8 " where width == nil:
                // A key frame's tag (3 bytes), its start code, then 14-bit width and height.
                let p = try read(body, 10)
                guard p.count == 10, p[3] == 0x9D, p[4] == 0x01, p[5] == 0x2A else { truncated = true; return }
                width = (Int(p[6]) | Int(p[7]) << 8) & 0x3FFF
                height = (Int(p[8]) | Int(p[9]) << 8) & 0x3FFF
            case "VP8L" where width == nil:
                // A signature byte, then width − 1 and height − 1 in 14 bits each.
                let p = try read(body, 5)
                guard p.count == 5, p[0] == 0x2F else { truncated = true; return }
                let bits = Self.le32(p, 1)
                width = Int(bits & 0x3FFF) + 1
                height = Int(bits >> 14 & 0x3FFF) + 1
            case "EXIF" where exif == nil:
                wantsExif = false
                let wanted = min(length, budget)
                exifCut = wanted < length
                let data = try read(body, wanted)
                guard data.count == wanted else { truncated = true; return }
                budget -= wanted
                exif = Self.exifBlock(data)
            case "XMP " where xmp == nil:
                wantsXMP = false
                if length > budget {
                    xmpOverCap = true
                } else {
                    let data = try read(body, length)
                    guard data.count == length else { truncated = true; return }
                    budget -= length
                    xmp = String(decoding: data, as: UTF8.self)
                }
            default:
                break
            }
            offset = body + Int64(length) + Int64(length & 1)
        }
    }

    /// The TIFF data with `Exif\0\0` before it: the specification says the chunk holds TIFF data
    /// alone; some writers (older ImageMagick, exiftool on request) put the JPEG's prefix first.
    static func exifBlock(_ data: [UInt8]) -> [UInt8] {
        let prefix: [UInt8] = Array("Exif".utf8) + [0, 0]
        return data.starts(with: prefix) ? data : prefix + data
    }

    static func le32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }

    static func le24(_ b: [UInt8], _ at: Int) -> Int {
        Int(b[at]) | Int(b[at + 1]) << 8 | Int(b[at + 2]) << 16
    }
}
