/// The parts of a TIFF that albumfs reads: its first image's size, and the EXIF block, which is
/// the file's own IFD0 (TIFF is EXIF's container) with its EXIF and GPS IFDs.
///
/// libexif reads an EXIF block from memory, its offsets counted from the TIFF header. A small
/// file is that block as it is; in a large one (a scan), libtiff and most writers put the
/// directories after the image data, so only the directories and the values they point to are
/// read, and moved next to a new header with every offset shifted by the same amount.
public struct TIFFHeader {
    public var width: Int?
    public var height: Int?
    public var truncated = false
    /// `Exif\0\0` and the TIFF data libexif reads.
    public var exif: [UInt8]?
    /// Whether IFD0 is a camera RAW's (a DNG's `DNGVersion`, `SubIFDs` holding the raw data, a
    /// reduced-resolution first image, Canon's `CR` mark, a colour filter array, a camera maker's
    /// own compression), or the file an Olympus or Panasonic one: a RAW is not a TIFF photo.
    public var looksRaw = false

    public static func isTIFF(_ b: some Collection<UInt8>) -> Bool {
        let head = Array(b.prefix(4))
        return head == [0x49, 0x49, 0x2A, 0x00] || head == [0x4D, 0x4D, 0x00, 0x2A]
    }

    /// Directories with more entries than this are not a photo's.
    static let mostEntries = 1024
    static let exifPointer = 0x8769, gpsPointer = 0x8825
    /// Compression numbers only camera RAWs use (exiftool's list: Sony ARW, Panasonic,
    /// Samsung SRW, Nikon NEF, Kodak, Pentax PEF).
    static let rawCompressions: Set<Int> = [32767, 32769, 32770, 32772, 32867, 34713, 65000, 65535]

    /// One directory as found: where it is and its entries' bytes.
    private struct Directory {
        var offset: Int
        var count: Int
        var bytes: [UInt8]
    }

    public init(size: Int64, read: (Int64, Int) throws -> [UInt8]) rethrows {
        let head = try read(0, 8)
        let rawMagic = [.orf, .rw2].contains(RawContainer.sniff(head))
        guard head.count == 8, Self.isTIFF(head) || rawMagic else { truncated = true; return }
        let little = head[0] == 0x49
        // (What libexif reads is a TIFF: an ORF's or RW2's own magic number is put back.)
        let standard: [UInt8] = little ? [0x49, 0x49, 0x2A, 0x00] : [0x4D, 0x4D, 0x00, 0x2A]
        func u16(_ b: [UInt8], _ at: Int) -> Int { little ? Int(b[at]) | Int(b[at + 1]) << 8 : Int(b[at]) << 8 | Int(b[at + 1]) }
        func u32(_ b: [UInt8], _ at: Int) -> Int { little ? u16(b, at) | u16(b, at + 2) << 16 : u16(b, at) << 16 | u16(b, at + 2) }
        let canonMark = try read(8, 2)
        looksRaw = rawMagic || canonMark == Array("CR".utf8)
        func directory(at offset: Int) throws -> Directory? {
            guard offset >= 8, Int64(offset) + 2 <= size else { return nil }
            let countBytes = try read(Int64(offset), 2)
            guard countBytes.count == 2 else { return nil }
            let count = u16(countBytes, 0)
            guard count <= Self.mostEntries else { return nil }
            let bytes = try read(Int64(offset) + 2, count * 12 + 4)
            guard bytes.count == count * 12 + 4 else { return nil }
            return Directory(offset: offset, count: count, bytes: bytes)
        }
        guard let ifd0 = try directory(at: u32(head, 4)) else { truncated = true; return }
        // The size of each TIFF type's value, by type number (1 BYTE … 13 IFD).
        let typeSizes = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4]
        func entries(_ d: Directory) -> [(tag: Int, type: Int, count: Int, at: Int)] {
            (0..<d.count).map { i in (u16(d.bytes, i * 12), u16(d.bytes, i * 12 + 2), u32(d.bytes, i * 12 + 4), i * 12) }
        }
        func value(_ d: Directory, _ e: (tag: Int, type: Int, count: Int, at: Int)) -> Int {
            e.type == 3 ? u16(d.bytes, e.at + 8) : u32(d.bytes, e.at + 8)
        }
        var directories = [ifd0]
        for e in entries(ifd0) {
            switch e.tag {
            case 0x100: width = value(ifd0, e)
            case 0x101: height = value(ifd0, e)
            case 0xFE: if value(ifd0, e) & 1 != 0 { looksRaw = true }
            case 0x14A, 0xC612: looksRaw = true
            // A colour filter array (CFA, or DNG's LinearRaw), or compression numbered in the
            // range TIFF leaves to vendors (Sony's, Panasonic's, Samsung's, Nikon's, Pentax's).
            case 0x106 where [32803, 34892].contains(value(ifd0, e)): looksRaw = true
            case 0x103 where Self.rawCompressions.contains(value(ifd0, e)): looksRaw = true
            case Self.exifPointer, Self.gpsPointer:
                if let d = try directory(at: value(ifd0, e)) { directories.append(d) }
            default: break
            }
        }
        // The bytes every directory and its out-of-line values span.
        var spans: [Range<Int>] = []
        for d in directories {
            spans.append(d.offset..<(d.offset + 2 + d.bytes.count))
            for e in entries(d) {
                let type = e.type < typeSizes.count ? typeSizes[e.type] : 0
                let (length, overflow) = type.multipliedReportingOverflow(by: e.count)
                guard !overflow, length > 4 else { continue }
                let at = u32(d.bytes, e.at + 8)
                // (A value past the end: the file is cut, or its directory damaged.)
                if at + length <= Int(size) { spans.append(at..<(at + length)) } else { truncated = true }
            }
        }
        let end = spans.map(\.upperBound).max()!
        let prefix = Array("Exif".utf8) + [0, 0]
        if end <= MetadataLimits.perFile {
            var all = try read(0, end)
            if all.count >= 4 { all.replaceSubrange(0..<4, with: standard) }
            exif = prefix + all
            return
        }
        guard let window = Self.window(directories: directories.map { $0.offset..<($0.offset + 2 + $0.bytes.count) }, values: spans)
        else { return }
        let (low, high) = (window.lowerBound, window.upperBound)
        // A new header, the span after it: every offset into the span moves by `shift`.
        let shift = low - 8
        var block = standard + [0, 0, 0, 0] + (try read(Int64(low), high - low))
        guard block.count == 8 + high - low else { truncated = true; return }
        func put32(_ v: Int, _ at: Int) {
            let bytes = [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
            for i in 0..<4 { block[at + i] = little ? bytes[3 - i] : bytes[i] }
        }
        put32(ifd0.offset - shift, 4)
        for d in directories {
            let base = d.offset - shift + 2
            for e in entries(d) {
                let type = e.type < typeSizes.count ? typeSizes[e.type] : 0
                let (length, overflow) = type.multipliedReportingOverflow(by: e.count)
                let pointer = d.offset == ifd0.offset && (e.tag == Self.exifPointer || e.tag == Self.gpsPointer)
                let at = u32(d.bytes, e.at + 8)
                let moved = !overflow && at >= low && at + length <= high ? at - shift : 0xFFFF_FF00
                if pointer || (!overflow && length > 4) { put32(moved, base + e.at + 8) }
            }
            // (No next directory: IFD1, a thumbnail, is not read.)
            put32(0, base + d.count * 12)
        }
        exif = prefix + block
    }

    /// The bytes to read: every directory, and as many values as the cap leaves room for, the
    /// smallest first. A value far from the directories (a camera RAW's private data at the end
    /// of the file) is left out; its offset is put past the block, where libexif passes over it.
    /// Nil when the directories alone span more than the cap.
    static func window(directories: [Range<Int>], values: [Range<Int>]) -> Range<Int>? {
        guard var window = directories.first else { return nil }
        for d in directories { window = min(window.lowerBound, d.lowerBound)..<max(window.upperBound, d.upperBound) }
        guard window.count <= MetadataLimits.perFile else { return nil }
        for s in values.sorted(by: { $0.count < $1.count }) {
            let wider = min(window.lowerBound, s.lowerBound)..<max(window.upperBound, s.upperBound)
            if wider.count <= MetadataLimits.perFile { window = wider }
        }
        return window
    }
}
