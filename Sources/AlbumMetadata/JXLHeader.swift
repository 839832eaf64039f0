/// The parts of a JPEG XL file that albumfs reads: its size and orientation from the codestream's
/// first bits, and its `Exif` and `xml ` boxes.
///
/// A JPEG XL file is a bare codestream (`FF 0A`, then the size header) or an ISO base media file
/// whose first box is the 12-byte `JXL ` signature box, holding the codestream in one `jxlc` box
/// or in `jxlp` boxes (each a 4-byte counter, its high bit set on the last, then a part), and
/// metadata in boxes of their own before or after it: `Exif` (a 4-byte offset to the TIFF header,
/// then TIFF data), `xml ` (XMP), or either compressed in a `brob` box (its first 4 bytes the
/// compressed box's type). ISO/IEC 18181-1 and 18181-2. The boxes are walked by their lengths;
/// the image data is never read.
public struct JXLHeader {
    /// The upright size (the codestream's orientation applied, as the decoder gives the image).
    public var width: Int?
    public var height: Int?
    /// The codestream's orientation (1–8, EXIF's numbering), which the decoder applies.
    public var orientation = 1
    /// The `Exif` box's TIFF data, prefixed with `Exif\0\0` for libexif.
    public var exif: [UInt8]?
    public var xmp: String?
    /// Whether the codestream is cut short or missing (nothing to decode).
    public var truncated = false
    /// The types of metadata boxes stored Brotli-compressed (`brob`), which the daemon does not
    /// inflate: `Exif`, `xml `.
    public var compressed: [String] = []
    /// Whether the `Exif` box was over the per-file cap: read only as far as it.
    public var exifCut = false
    /// Whether the `xml ` box was over what was left of the per-file cap: skipped.
    public var xmpOverCap = false

    /// The problem a file is named with for a metadata box of `type` stored compressed.
    public static func compressedProblem(_ type: String) -> String {
        "\(type == "Exif" ? "EXIF" : "XMP") stored Brotli-compressed (brob) not read"
    }

    /// A bare codestream's signature.
    public static let codestreamSignature: [UInt8] = [0xFF, 0x0A]
    /// The container's signature box: its length (12), `JXL `, `\r\n\x87\n`.
    public static let containerSignature: [UInt8] = [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]

    /// Whether `b` starts like a JPEG XL file (container or bare codestream).
    public static func isJXL(_ b: some Collection<UInt8>) -> Bool {
        b.starts(with: codestreamSignature) || b.starts(with: containerSignature)
    }

    /// More boxes than a file split into many `jxlp` parts are not walked.
    static let mostBoxes = 1024
    /// The codestream bytes that hold the size header and the orientation, at most.
    static let codestreamPrefix = 32

    /// - Parameters:
    ///   - size: the file's length in bytes.
    ///   - read: `(offset, count)` → the bytes there (fewer at the end of the file).
    public init(size: Int64, read: (Int64, Int) throws -> [UInt8]) rethrows {
        let head = try read(0, Self.containerSignature.count)
        if head.starts(with: Self.codestreamSignature) {
            readCodestream(try read(0, Self.codestreamPrefix))
        } else {
            try walkBoxes(size: size, read: read)
        }
    }

    /// The size header and orientation from the codestream's first bytes.
    mutating func readCodestream(_ prefix: [UInt8]) {
        guard prefix.starts(with: Self.codestreamSignature), let found = JXLSizeHeader(prefix.dropFirst(2)) else {
            truncated = true
            return
        }
        orientation = found.orientation
        (width, height) = found.orientation > 4 ? (found.height, found.width) : (found.width, found.height)
    }

    /// The container's boxes, from the one after the signature box.
    private mutating func walkBoxes(size: Int64, read: (Int64, Int) throws -> [UInt8]) rethrows {
        var offset = Int64(Self.containerSignature.count)
        var budget = MetadataLimits.perFile
        var codestream: [UInt8] = []
        var codestreamWhole = false
        defer {
            if !codestream.isEmpty { readCodestream(codestream) }
            if !codestreamWhole { truncated = true }
        }
        for _ in 0..<Self.mostBoxes where offset < size {
            guard let box = try JXLBox(at: offset, size: size, read: read) else { return }
            // (A codestream's box cut short still gives the size, read from what is there.)
            guard box.whole || ["jxlc", "jxlp"].contains(box.type) else { return }
            switch box.type {
            case "jxlc", "jxlp":
                let isPart = box.type == "jxlp"
                let skip = isPart ? 4 : 0
                let counter = isPart ? try read(box.body, 4) : []
                guard counter.count == skip else { return }
                let wanted = max(0, min(Self.codestreamPrefix - codestream.count, Int(box.length) - skip))
                if wanted > 0 { codestream += try read(box.body + Int64(skip), wanted) }
                codestreamWhole = box.whole && (!isPart || counter[0] & 0x80 != 0)
                guard box.whole else { return }
            case "Exif" where exif == nil:
                let wanted = Int(min(box.length, Int64(budget)))
                exifCut = Int64(wanted) < box.length
                let data = try read(box.body, wanted)
                guard data.count == wanted else { return }
                budget -= wanted
                exif = Self.exifBlock(data)
            case "xml " where xmp == nil:
                if box.length > Int64(budget) {
                    xmpOverCap = true
                } else {
                    let data = try read(box.body, Int(box.length))
                    guard data.count == Int(box.length) else { return }
                    budget -= data.count
                    xmp = String(decoding: data, as: UTF8.self)
                }
            case "brob":
                let inner = try read(box.body, 4)
                let type = String(decoding: inner, as: UTF8.self)
                if inner.count == 4, ["Exif", "xml "].contains(type), !compressed.contains(type) { compressed.append(type) }
            default:
                break
            }
            if codestreamWhole, width == nil, !codestream.isEmpty { readCodestream(codestream) }
            if width != nil, exif != nil, xmp != nil { return }
            offset = box.body + box.length
        }
    }

    /// The `Exif` box's TIFF data with `Exif\0\0` before it (nil when its offset points outside it).
    static func exifBlock(_ data: [UInt8]) -> [UInt8]? {
        guard let skip = data.be32(0), skip >= 0, 4 + skip <= data.count else { return nil }
        return Array("Exif".utf8) + [0, 0] + data[(4 + skip)...]
    }
}

/// One box's header: its type, where its payload starts and how long it is.
struct JXLBox {
    var type: String
    var body: Int64
    /// The payload's length within the file (less than its header says when the file is cut).
    var length: Int64
    /// Whether the whole payload lies within the file.
    var whole: Bool

    /// The box at `offset`; nil when its header runs past the file's end or its length is none.
    init?(at offset: Int64, size: Int64, read: (Int64, Int) throws -> [UInt8]) rethrows {
        let head = try read(offset, 16)
        guard head.count >= 8, let short = head.be32(0) else { return nil }
        type = String(decoding: head[4..<8], as: UTF8.self)
        switch short {
        case 0:
            // To the end of the file.
            body = offset + 8
            length = size - body
        case 1:
            guard head.count == 16, let high = head.be32(8), let low = head.be32(12), high < 1 << 31 else { return nil }
            body = offset + 16
            length = Int64(high) << 32 | Int64(low) - 16
        default:
            body = offset + 8
            length = Int64(short) - 8
        }
        guard length >= 0, body <= size else { return nil }
        whole = length <= size - body
        length = min(length, size - body)
    }
}

/// The codestream's size header and the orientation in the image metadata after it, read bit by
/// bit, least significant first (ISO/IEC 18181-1, `SizeHeader` and `ImageMetadata`).
struct JXLSizeHeader {
    var width: Int
    var height: Int
    var orientation: Int

    /// The widths of the fixed aspect ratios (`ratio` 1–7) over their heights.
    static let ratios: [(Int, Int)] = [(1, 1), (12, 10), (4, 3), (3, 2), (16, 9), (5, 4), (2, 1)]

    /// Nil when `bytes` end before the fields do.
    init?(_ bytes: some Collection<UInt8>) {
        var bits = JXLBitReader(Array(bytes))
        guard let small = bits.read(1) else { return nil }
        func side() -> Int? {
            if small == 1 { return bits.read(5).map { ($0 + 1) * 8 } }
            guard let selector = bits.read(2) else { return nil }
            return bits.read([9, 13, 18, 30][selector]).map { $0 + 1 }
        }
        guard let h = side(), let ratio = bits.read(3) else { return nil }
        if ratio == 0 {
            guard let w = side() else { return nil }
            width = w
        } else {
            let (num, den) = Self.ratios[ratio - 1]
            width = h * num / den
        }
        height = h
        guard let allDefault = bits.read(1) else { return nil }
        if allDefault == 1 {
            orientation = 1
        } else {
            guard let extraFields = bits.read(1) else { return nil }
            if extraFields == 1 {
                guard let o = bits.read(3) else { return nil }
                orientation = o + 1
            } else {
                orientation = 1
            }
        }
    }
}

/// Bits out of bytes, least significant bit of each byte first.
struct JXLBitReader {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The next `count` bits (≤ 32) as a number, the first read the lowest; nil past the end.
    mutating func read(_ count: Int) -> Int? {
        guard position + count <= bytes.count * 8 else { return nil }
        var value = 0
        for i in 0..<count {
            let bit = position + i
            value |= Int(bytes[bit >> 3] >> UInt8(bit & 7) & 1) << i
        }
        position += count
        return value
    }
}
