/// The parts of a PNG that albumfs reads: size, text chunks (`Software`, XMP, comments) and EXIF.
///
/// Metadata may sit before the image data or after it (the PNG specification allows both:
/// ImageMagick writes `eXIf` and `tEXt` after `IDAT`, so a PNG converted from a camera JPEG keeps
/// its capture date only there). The chunks before `IDAT` are read one by one; the image data is
/// never read: the file's last 64 KiB are read at once and the chunks there found by their CRC.
public struct PNGHeader {
    public var width: Int?
    public var height: Int?
    /// `tEXt`, `zTXt` and `iTXt` entries (compressed ones inflated), keyword → text.
    public var text: [String: String] = [:]
    /// The `eXIf` chunk's TIFF data, prefixed with `Exif\0\0` for libexif.
    public var exifChunk: [UInt8]?
    public var truncated = false
    /// Compressed text chunks that could not be inflated (damaged, or past 4 MiB), by keyword:
    /// skipped, and said, as exiftool warns of them.
    public var damagedText: [String] = []

    /// The EXIF block: the `eXIf` chunk's, else the one ImageMagick and older tools store as hex
    /// text (`Raw profile type exif` or `APP1`).
    public var exif: [UInt8]? {
        exifChunk ?? (text["Raw profile type exif"] ?? text["Raw profile type APP1"]).flatMap(Self.rawProfile).map(Self.exifBlock)
    }

    /// The XMP packet: the standard `iTXt` one, else ImageMagick's `Raw profile type xmp`.
    public var xmp: String? {
        text["XML:com.adobe.xmp"] ?? text["Raw profile type xmp"].flatMap(Self.rawProfile).map { String(decoding: $0, as: UTF8.self) }
    }

    /// How much of the file's end is read for the chunks after the image data.
    static let tailWindow = 64 << 10
    /// Metadata chunks are small; a bigger one is skipped rather than read into memory.
    static let largestMetadataChunk = 4 << 20

    /// - Parameters:
    ///   - size: the file's length in bytes, for the chunks after the image data (nil: not read).
    ///   - read: `(offset, count)` → the bytes there (fewer at the end of the file).
    public init(size: Int64?, read: (Int64, Int) throws -> [UInt8]) rethrows {
        var offset: Int64 = 8
        for _ in 0..<1024 {
            let head = try read(offset, 8)
            guard head.count == 8, let length = head.be32(0), length <= 0x7FFF_FFFF else { truncated = true; return }
            let type = String(decoding: head[4..<8], as: UTF8.self)
            if type == "IEND" { break }
            if type == "IDAT" {
                if let size { try readChunksAfterImageData(at: offset, size: size, read: read) }
                break
            }
            if Self.isMetadata(type), length <= Self.largestMetadataChunk {
                let data = try read(offset + 8, length)
                if data.count < length { truncated = true; return }
                take(type, data[...])
            }
            offset += 12 + Int64(length)
        }
    }

    static func isMetadata(_ type: String) -> Bool {
        type == "IHDR" || type == "tEXt" || type == "zTXt" || type == "iTXt" || type == "eXIf"
    }

    /// The chunks from the first `IDAT` (at `start`) to `IEND`: all of them when they fit in the
    /// tail window, else the window's, from the first chunk in it whose CRC is right.
    private mutating func readChunksAfterImageData(at start: Int64, size: Int64, read: (Int64, Int) throws -> [UInt8]) rethrows {
        guard size > start else { return }
        let windowStart = max(start, size - Int64(Self.tailWindow))
        let tail = try read(windowStart, Int(size - windowStart))
        guard var at = windowStart == start ? 0 : Self.firstWholeChunk(in: tail) else { return }
        while let length = tail.be32(at), at + 12 + length <= tail.count {
            let type = String(decoding: tail[(at + 4)..<(at + 8)], as: UTF8.self)
            if type == "IEND" { return }
            if Self.isMetadata(type) && type != "IHDR" { take(type, tail[(at + 8)..<(at + 8 + length)]) }
            at += 12 + length
        }
    }

    /// Where the first whole chunk of `bytes` (read from the middle of a file) starts: its type is
    /// four ASCII letters and its CRC matches (a false match in compressed image data is a 1 in
    /// 2^32 chance per position that looks like a chunk).
    static func firstWholeChunk(in bytes: [UInt8]) -> Int? {
        func isLetter(_ b: UInt8) -> Bool { (65...90).contains(b) || (97...122).contains(b) }
        var at = 0
        while at + 12 <= bytes.count {
            if isLetter(bytes[at + 4]), isLetter(bytes[at + 5]), isLetter(bytes[at + 6]), isLetter(bytes[at + 7]),
               let length = bytes.be32(at), length <= bytes.count - at - 12,
               let crc = bytes.be32(at + 8 + length), Zlib.crc32(bytes[(at + 4)..<(at + 8 + length)]) == UInt32(crc) {
                return at
            }
            at += 1
        }
        return nil
    }

    private mutating func take(_ type: String, _ data: ArraySlice<UInt8>) {
        switch type {
        case "IHDR":
            let fields = Array(data)
            width = fields.be32(0)
            height = fields.be32(4)
        case "eXIf":
            exifChunk = Self.exifBlock(data)
        case "tEXt":
            guard let nul = data.firstIndex(of: 0) else { return }
            text[Self.keyword(data[..<nul])] = Self.latin1(data[(nul + 1)...])
        case "zTXt":
            // keyword \0 compression-method(0: zlib) compressed-text, Latin-1 like tEXt
            guard let nul = data.firstIndex(of: 0), nul + 1 < data.endIndex, data[nul + 1] == 0 else { return }
            guard let inflated = Zlib.inflate(data[(nul + 2)...]) else { damagedText.append(Self.keyword(data[..<nul])); return }
            text[Self.keyword(data[..<nul])] = Self.latin1(inflated[...])
        case "iTXt":
            // keyword \0 compression-flag compression-method language \0 translated-keyword \0 text (UTF-8)
            guard let nul = data.firstIndex(of: 0), nul + 2 < data.endIndex else { return }
            let compressed = data[nul + 1] == 1
            guard !compressed || data[nul + 2] == 0 else { return }
            var rest = data[(nul + 3)...]
            guard let languageEnd = rest.firstIndex(of: 0) else { return }
            rest = rest[(languageEnd + 1)...]
            guard let translatedEnd = rest.firstIndex(of: 0) else { return }
            let body = rest[(translatedEnd + 1)...]
            if compressed {
                guard let inflated = Zlib.inflate(body) else { damagedText.append(Self.keyword(data[..<nul])); return }
                text[Self.keyword(data[..<nul])] = String(decoding: inflated, as: UTF8.self)
            } else {
                text[Self.keyword(data[..<nul])] = String(decoding: body, as: UTF8.self)
            }
        default:
            break
        }
    }

    private static func keyword(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }
    private static func latin1(_ bytes: ArraySlice<UInt8>) -> String { String(bytes.map { Character(Unicode.Scalar($0)) }) }

    /// TIFF data as libexif wants it: after `Exif\0\0` (added when missing).
    static func exifBlock(_ tiff: some Collection<UInt8>) -> [UInt8] {
        tiff.starts(with: JPEGHeader.exifSignature) ? Array(tiff) : JPEGHeader.exifSignature + tiff
    }

    /// The bytes of an ImageMagick raw profile: `\n<name>\n<length>\n<hex digits, in lines>`.
    /// Nil when it is not one, or holds fewer digits than its length says.
    static func rawProfile(_ text: String) -> [UInt8]? {
        let lines = text.utf8.split(separator: UInt8(ascii: "\n"), maxSplits: 2, omittingEmptySubsequences: true)
        guard lines.count == 3, let length = Int(String(decoding: lines[1].filter { $0 != UInt8(ascii: " ") }, as: UTF8.self)),
              length > 0, length <= largestMetadataChunk else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        var high: UInt8?
        for c in lines[2] {
            guard let nibble = c.hexValue else {
                if c == UInt8(ascii: " ") || c == UInt8(ascii: "\n") || c == UInt8(ascii: "\r") || c == UInt8(ascii: "\t") { continue }
                return nil
            }
            if let h = high {
                bytes.append(h << 4 | nibble)
                high = nil
                if bytes.count == length { return bytes }
            } else {
                high = nibble
            }
        }
        return nil
    }
}

private extension UInt8 {
    var hexValue: UInt8? {
        switch self {
        case 48...57: self - 48
        case 65...70: self - 55
        case 97...102: self - 87
        default: nil
        }
    }
}
