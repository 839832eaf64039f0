/// The parts of a PNG that albumfs reads: size, text chunks (`Software`, XMP, comments) and EXIF.
///
/// Metadata may sit before the image data or after it (the PNG specification allows both:
/// ImageMagick writes `eXIf` and `tEXt` after `IDAT`, so a PNG converted from a camera JPEG keeps
/// its capture date only there). The chunks before `IDAT` are read one by one; the image data is
/// never read: the file's end (a little more than one image data chunk, else 64 KiB) is read at
/// once and the chunks there found by their CRC.
public struct PNGHeader {
    public var width: Int?
    public var height: Int?
    /// `tEXt`, `zTXt` and `iTXt` entries (compressed ones inflated), keyword → text.
    public var text: [String: String] = [:]
    /// The `eXIf` chunk's TIFF data, prefixed with `Exif\0\0` for libexif.
    public var exifChunk: [UInt8]?
    public var truncated = false
    /// Compressed text chunks that could not be inflated (damaged), by keyword: skipped, and
    /// said, as exiftool warns of them.
    public var damagedText: [String] = []
    /// Text chunks the rules use that were skipped for the per-file cap (`MetadataLimits`), by
    /// keyword: said, as a damaged one is.
    public var overCap: [String] = []
    /// Whether the `eXIf` chunk was over what was left of the cap: read only as far as it.
    public var exifCut = false
    /// Bytes of metadata kept or inflated so far, against `MetadataLimits.perFile`.
    private var budget = MetadataLimits.perFile

    /// The text chunks the rules read (`MetadataReader`); every other one is passed over unread,
    /// however many a file has.
    static let wantedKeywords: Set<String> = ["Software", "Comment", "Description", "XML:com.adobe.xmp",
                                              "Raw profile type exif", "Raw profile type APP1", "Raw profile type xmp"]

    /// The EXIF block: the `eXIf` chunk's, else the one ImageMagick and older tools store as hex
    /// text (`Raw profile type exif` or `APP1`).
    public var exif: [UInt8]? {
        exifChunk ?? (text["Raw profile type exif"] ?? text["Raw profile type APP1"]).flatMap(Self.rawProfile).map(Self.exifBlock)
    }

    /// The XMP packet: the standard `iTXt` one, else ImageMagick's `Raw profile type xmp`.
    public var xmp: String? {
        text["XML:com.adobe.xmp"] ?? text["Raw profile type xmp"].flatMap(Self.rawProfile).map { String(decoding: $0, as: UTF8.self) }
    }

    /// How much of the file's end is read for the chunks after the image data: first one image
    /// data chunk's worth and `tailSlack` more, which is all when the last image data chunk shows
    /// in it (writers cut the image data into chunks of one size: libpng 8 KiB, ImageMagick
    /// 32 KiB); else `tailWindow`.
    static let tailSlack = 4 << 10
    static let tailWindow = 64 << 10
    /// An ImageMagick raw profile longer than this is not one albumfs reads.
    static let largestMetadataChunk = MetadataLimits.perFile

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
                if let size { try readChunksAfterImageData(at: offset, chunkLength: length, size: size, read: read) }
                break
            }
            if Self.isMetadata(type), try isWanted(type, at: offset + 8, length: length, read: read) {
                // (EXIF over the cap is read as far as it: its IFDs come first.)
                let wanted = type == "eXIf" ? min(length, budget) : length
                let data = try read(offset + 8, wanted)
                if data.count < wanted { truncated = true; return }
                take(type, data[...], declared: length)
            }
            offset += 12 + Int64(length)
        }
    }

    /// Whether a metadata chunk's body is worth reading: its keyword (in its first 80 bytes) is
    /// one the rules use, and it fits in what is left of the per-file cap (else it is named in
    /// `overCap`).
    private mutating func isWanted(_ type: String, at offset: Int64, length: Int, read: (Int64, Int) throws -> [UInt8]) rethrows -> Bool {
        guard type != "IHDR" else { return length <= budget }
        guard type != "eXIf" else {
            if budget == 0 { overCap.append(type) }
            return budget > 0
        }
        let head = try read(offset, min(length, 80))
        guard let nul = head.firstIndex(of: 0) else { return false }
        let keyword = Self.keyword(head[..<nul])
        guard Self.wantedKeywords.contains(keyword) else { return false }
        guard length <= budget else {
            overCap.append(keyword)
            return false
        }
        return true
    }

    static func isMetadata(_ type: String) -> Bool {
        type == "IHDR" || type == "tEXt" || type == "zTXt" || type == "iTXt" || type == "eXIf"
    }

    /// The chunks from the first `IDAT` (at `start`, `chunkLength` long) to `IEND`: all of them
    /// when they fit in a tail window, else the big window's, from the first chunk in it whose
    /// CRC is right.
    ///
    /// Why two windows: most PNGs have nothing after their image data, yet only the chunks can
    /// tell, and 64 KiB more per big PNG is what a slow disk or a network share feels over a
    /// folder of screenshots. The small window is enough whenever an `IDAT` chunk shows in it:
    /// image data chunks are consecutive, so every chunk after the image data is then in it.
    private mutating func readChunksAfterImageData(at start: Int64, chunkLength: Int, size: Int64,
                                                   read: (Int64, Int) throws -> [UInt8]) rethrows {
        guard size > start else { return }
        let small = chunkLength + 12 + Self.tailSlack
        for window in small < Self.tailWindow ? [small, Self.tailWindow] : [Self.tailWindow] {
            let windowStart = max(start, size - Int64(window))
            let tail = try read(windowStart, Int(size - windowStart))
            let whole = windowStart == start
            guard let first = whole ? 0 : Self.firstWholeChunk(in: tail) else { continue }
            let chunks = Self.chunks(in: tail, from: first)
            guard whole || window == Self.tailWindow || chunks.contains(where: { $0.type == "IDAT" }) else { continue }
            for (type, data) in chunks where Self.isMetadata(type) && type != "IHDR" { take(type, data) }
            return
        }
    }

    /// The whole chunks of `bytes` from `at` on, up to `IEND` or the first cut one: type and data.
    static func chunks(in bytes: [UInt8], from at: Int) -> [(type: String, data: ArraySlice<UInt8>)] {
        var found: [(type: String, data: ArraySlice<UInt8>)] = []
        var at = at
        while let length = bytes.be32(at), at + 12 + length <= bytes.count {
            let type = String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)
            if type == "IEND" { break }
            found.append((type, bytes[(at + 8)..<(at + 8 + length)]))
            at += 12 + length
        }
        return found
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

    /// - Parameter declared: the chunk's length, when `data` may be only its start (`eXIf`).
    private mutating func take(_ type: String, _ data: ArraySlice<UInt8>, declared: Int? = nil) {
        var data = data
        if type == "eXIf", max(declared ?? 0, data.count) > budget {
            data = data.prefix(budget)
            exifCut = true
        }
        if type != "IHDR" {
            // (Chunks after the image data come here unchecked: from the tail, already read.)
            if type != "eXIf", let nul = data.firstIndex(of: 0), !Self.wantedKeywords.contains(Self.keyword(data[..<nul])) { return }
            guard data.count <= budget else {
                overCap.append(type == "eXIf" ? "eXIf" : data.firstIndex(of: 0).map { Self.keyword(data[..<$0]) } ?? type)
                return
            }
            budget -= data.count
        }
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
            guard let inflated = inflate(data[(nul + 2)...], keyword: Self.keyword(data[..<nul])) else { return }
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
                guard let inflated = inflate(body, keyword: Self.keyword(data[..<nul])) else { return }
                text[Self.keyword(data[..<nul])] = String(decoding: inflated, as: UTF8.self)
            } else {
                text[Self.keyword(data[..<nul])] = String(decoding: body, as: UTF8.self)
            }
        default:
            break
        }
    }

    /// A compressed text, inflated within what is left of the per-file cap: one that would pass
    /// it stops there (`overCap`), a damaged one is named in `damagedText`.
    private mutating func inflate(_ compressed: ArraySlice<UInt8>, keyword: String) -> [UInt8]? {
        switch Zlib.inflate(compressed, limit: budget) {
        case .inflated(let bytes):
            budget -= bytes.count
            return bytes
        case .overLimit:
            overCap.append(keyword)
        case .damaged:
            damagedText.append(keyword)
        }
        return nil
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
