/// The parts of a PNG that albumfs reads: size, text chunks (`Software`, XMP) and `eXIf`.
///
/// Reads chunk headers up to the first `IDAT`: screenshot tools and phones write their metadata
/// before the image data, and skipping the data keeps a scan to a few small reads per file.
public struct PNGHeader {
    public var width: Int?
    public var height: Int?
    /// Uncompressed `tEXt` and `iTXt` entries, keyword → text.
    public var text: [String: String] = [:]
    /// The `eXIf` chunk's TIFF data, prefixed with `Exif\0\0` for libexif.
    public var exif: [UInt8]?
    public var truncated = false

    public init(read: (Int64, Int) throws -> [UInt8]) rethrows {
        var offset: Int64 = 8
        for _ in 0..<1024 {
            let head = try read(offset, 8)
            guard head.count == 8, let length = head.be32(0), length <= 0x7FFF_FFFF else { truncated = true; return }
            let type = String(decoding: head[4..<8], as: UTF8.self)
            if type == "IDAT" || type == "IEND" { return }
            let wanted = ["IHDR", "tEXt", "iTXt", "eXIf"].contains(type)
            // Metadata chunks are small; a huge one is skipped rather than read into memory.
            if wanted, length <= 4 << 20 {
                let data = try read(offset + 8, length)
                if data.count < length { truncated = true; return }
                take(type, data)
            }
            offset += 12 + Int64(length)
        }
    }

    private mutating func take(_ type: String, _ data: [UInt8]) {
        switch type {
        case "IHDR":
            width = data.be32(0)
            height = data.be32(4)
        case "eXIf":
            exif = JPEGHeader.exifSignature + data
        case "tEXt":
            guard let nul = data.firstIndex(of: 0) else { return }
            let key = String(decoding: data[..<nul], as: UTF8.self)
            // tEXt is Latin-1.
            text[key] = String(data[(nul + 1)...].map { Character(Unicode.Scalar($0)) })
        case "iTXt":
            // keyword \0 compression-flag compression-method language \0 translated-keyword \0 text
            guard let nul = data.firstIndex(of: 0), nul + 2 < data.count, data[nul + 1] == 0 else { return }
            let key = String(decoding: data[..<nul], as: UTF8.self)
            var rest = data[(nul + 3)...]
            guard let langEnd = rest.firstIndex(of: 0) else { return }
            rest = rest[(langEnd + 1)...]
            guard let transEnd = rest.firstIndex(of: 0) else { return }
            text[key] = String(decoding: rest[(transEnd + 1)...], as: UTF8.self)
        default:
            break
        }
    }
}
