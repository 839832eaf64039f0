/// The containers camera RAW files come in, told apart by their first bytes. Most are TIFF
/// (DNG, CR2, NEF, ARW, PEF, SRW: `TIFFHeader.looksRaw` tells them from a scan); Olympus and
/// Panasonic change TIFF's magic number; Fujifilm and Canon's CR3 have containers of their own.
public enum RawContainer: String, Sendable {
    /// A TIFF whose IFD0 marks a camera RAW.
    case tiff
    /// Olympus ORF: TIFF with `IIRO`, `IIRS` or `MMOR` for `II*\0`.
    case orf
    /// Panasonic RW2: TIFF with `IIU\0`.
    case rw2
    /// Fujifilm RAF: its own header, which points at an embedded JPEG holding the EXIF.
    case raf
    /// Canon CR3: ISO base media (`ftyp crx `), its EXIF as TIFF structures in `CMT1`…`CMT4`.
    case cr3

    static let rafMagic = Array("FUJIFILMCCD-RAW".utf8)

    /// The RAW container `header` (a file's first bytes) starts, other than a plain TIFF one.
    public static func sniff(_ header: some Collection<UInt8>) -> RawContainer? {
        let b = Array(header.prefix(16))
        guard b.count >= 4 else { return nil }
        switch (b[0], b[1], b[2], b[3]) {
        case (0x49, 0x49, 0x52, 0x4F), (0x49, 0x49, 0x52, 0x53), (0x4D, 0x4D, 0x4F, 0x52): return .orf
        case (0x49, 0x49, 0x55, 0x00): return .rw2
        default: break
        }
        if b.starts(with: rafMagic) { return .raf }
        if b.count >= 12, b[4..<12].elementsEqual(Array("ftypcrx ".utf8)) { return .cr3 }
        return nil
    }
}

/// What the scan reads from a RAF or CR3 file: the EXIF block libexif reads, made of the
/// container's parts. Pure Swift over bounded reads: no C library sees a RAW in the daemon.
public struct RawHeader {
    public var width: Int?
    public var height: Int?
    public var truncated = false
    /// `Exif\0\0` and the TIFF data libexif reads.
    public var exif: [UInt8]?

    /// Boxes looked at at most, at each level of a CR3 (real ones have a handful).
    static let mostBoxes = 32
    /// The UUID of Canon's box inside `moov` that holds `CMT1`…`CMT4`.
    static let canonUUID: [UInt8] = [0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0, 0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48]

    public init<E: Error>(_ container: RawContainer, size: Int64, read: (Int64, Int) throws(E) -> [UInt8]) throws(E) {
        switch container {
        case .raf: try readRAF(size: size, read: read)
        case .cr3: try readCR3(size: size, read: read)
        case .tiff, .orf, .rw2: truncated = true
        }
    }

    /// RAF: a 84-byte header (magic, version, camera), then the embedded JPEG's offset and
    /// length, big-endian; the JPEG's APP1 is the file's EXIF.
    private mutating func readRAF<E: Error>(size: Int64, read: (Int64, Int) throws(E) -> [UInt8]) throws(E) {
        let pointer = try read(84, 8)
        guard let offset = pointer.be32(0), let length = pointer.be32(4), offset >= 92, length > 0,
              Int64(offset) + Int64(length) <= size else { truncated = true; return }
        let jpeg = try JPEGHeader { (at: Int64, count: Int) throws(E) -> [UInt8] in
            guard at >= 0, at < Int64(length) else { return [] }
            return try read(Int64(offset) + at, Int(min(Int64(count), Int64(length) - at)))
        }
        exif = jpeg.exif
        truncated = jpeg.truncated
    }

    /// CR3: `moov`, then the `uuid` box of Canon's UUID, then `CMT1` (IFD0 as a TIFF), `CMT2`
    /// (the EXIF IFD as a TIFF of its own) and `CMT4` (the GPS IFD, likewise), joined into one
    /// block (`CanonMetadata`).
    private mutating func readCR3<E: Error>(size: Int64, read: (Int64, Int) throws(E) -> [UInt8]) throws(E) {
        func children(from start: Int64, to end: Int64) throws(E) -> [PlacedBox] {
            var boxes: [PlacedBox] = []
            var at = start
            while at < end, boxes.count < Self.mostBoxes {
                guard let box = ISOBoxHeader(try read(at, 16), at: 0, fileEnd: end - at) else { truncated = true; break }
                boxes.append(PlacedBox(offset: at, header: box))
                at += box.length
            }
            return boxes
        }
        guard let moov = try children(from: 0, to: size).first(where: { $0.type == "moov" }) else { truncated = true; return }
        var canon: PlacedBox?
        for box in try children(from: moov.bodyStart, to: moov.end) where box.type == "uuid" {
            if try read(box.bodyStart, 16) == Self.canonUUID { canon = box; break }
        }
        guard let canon else { truncated = true; return }
        var parts: [String: [UInt8]] = [:]
        for box in try children(from: canon.bodyStart + 16, to: canon.end) where ["CMT1", "CMT2", "CMT4"].contains(box.type) {
            guard box.header.bodyLength <= MetadataLimits.perFile else { continue }
            let body = try read(box.bodyStart, box.header.bodyLength)
            if body.count < box.header.bodyLength { truncated = true }
            parts[box.type] = body
        }
        exif = CanonMetadata.exifBlock(ifd0: parts["CMT1"], exifIFD: parts["CMT2"], gps: parts["CMT4"])
    }
}

/// CR3's metadata boxes made into the one EXIF block libexif reads.
enum CanonMetadata {
    /// `exifIFD` (a TIFF whose first directory is the EXIF IFD) kept whole, with a new IFD0
    /// after it: `ifd0`'s entries (their out-of-line values in a copy of `ifd0` appended, each
    /// offset moved by where it lies), an EXIF pointer to the first directory, and a GPS pointer
    /// to a copy of `gps`'s first directory made the same way. Nil when `exifIFD` is no TIFF.
    static func exifBlock(ifd0: [UInt8]?, exifIFD: [UInt8]?, gps: [UInt8]? = nil) -> [UInt8]? {
        guard var block = exifIFD, block.count >= 8, TIFFHeader.isTIFF(block) else { return nil }
        let order = TIFFByteOrder(little: block[0] == 0x49)
        guard let exifAt = order.u32(block, 4), exifAt >= 8, exifAt < block.count else { return nil }
        var entries: [(tag: Int, bytes: [UInt8])] = [(0x8769, order.entry(tag: 0x8769, type: 4, count: 1, value: exifAt))]
        if let ifd0, ifd0.count >= 8, Array(ifd0[0..<4]) == Array(block[0..<4]) {
            if block.count % 2 == 1 { block.append(0) }
            let base = block.count
            block += ifd0
            entries += order.entries(ofFirstDirectoryIn: ifd0, movedBy: base)
        }
        if let gps, gps.count >= 8, Array(gps[0..<4]) == Array(block[0..<4]) {
            if block.count % 2 == 1 { block.append(0) }
            let base = block.count
            block += gps
            let gpsEntries = order.entries(ofFirstDirectoryIn: gps, movedBy: base)
            if !gpsEntries.isEmpty {
                entries.append((0x8825, order.entry(tag: 0x8825, type: 4, count: 1, value: block.count)))
                block += order.directory(gpsEntries)
            }
        }
        if block.count % 2 == 1 { block.append(0) }
        let at = block.count
        block += order.directory(entries)
        block.replaceSubrange(4..<8, with: order.u32Bytes(at))
        return Array("Exif\0\0".utf8) + block
    }
}

/// Reading and writing TIFF's integers in a file's byte order.
struct TIFFByteOrder {
    let little: Bool
    /// The size of each TIFF type's value, by type number (1 BYTE … 13 IFD).
    static let typeSizes = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4]
    /// Entries of a directory taken over at most (the sub-IFD pointers are left behind).
    static let mostEntries = 1024

    func u16(_ b: [UInt8], _ at: Int) -> Int? {
        guard at >= 0, at + 2 <= b.count else { return nil }
        return little ? Int(b[at]) | Int(b[at + 1]) << 8 : Int(b[at]) << 8 | Int(b[at + 1])
    }
    func u32(_ b: [UInt8], _ at: Int) -> Int? {
        guard let a = u16(b, at), let c = u16(b, at + 2) else { return nil }
        return little ? a | c << 16 : a << 16 | c
    }
    func u16Bytes(_ v: Int) -> [UInt8] {
        let b = [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        return little ? b.reversed() : b
    }
    func u32Bytes(_ v: Int) -> [UInt8] {
        let b = [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        return little ? b.reversed() : b
    }
    /// A directory of `entries`, in tag order, with no next one (its length is even: a directory
    /// appended after it starts on a word boundary).
    func directory(_ entries: [(tag: Int, bytes: [UInt8])]) -> [UInt8] {
        u16Bytes(entries.count) + entries.sorted(by: { $0.tag < $1.tag }).flatMap(\.bytes) + [0, 0, 0, 0]
    }

    func entry(tag: Int, type: Int, count: Int, value: Int) -> [UInt8] {
        u16Bytes(tag) + u16Bytes(type) + u32Bytes(count) + u32Bytes(value)
    }

    /// The entries of `tiff`'s first directory, each value's offset moved by `shift` where it
    /// lies outside its entry; pointers to other directories are left out.
    func entries(ofFirstDirectoryIn tiff: [UInt8], movedBy shift: Int) -> [(tag: Int, bytes: [UInt8])] {
        guard let at = u32(tiff, 4), let count = u16(tiff, at), count <= Self.mostEntries else { return [] }
        var out: [(tag: Int, bytes: [UInt8])] = []
        for i in 0..<count {
            let e = at + 2 + i * 12
            guard let tag = u16(tiff, e), let type = u16(tiff, e + 2), let n = u32(tiff, e + 4), let value = u32(tiff, e + 8) else { break }
            guard ![0x8769, 0x8825, 0xA005, 0x14A].contains(tag) else { continue }
            let size = type < Self.typeSizes.count ? Self.typeSizes[type] : 0
            let (length, overflow) = size.multipliedReportingOverflow(by: n)
            guard !overflow, size > 0 else { continue }
            if length > 4 {
                guard value + length <= tiff.count else { continue }
                out.append((tag, entry(tag: tag, type: type, count: n, value: value + shift)))
            } else {
                out.append((tag, Array(tiff[(e)..<(e + 12)])))
            }
        }
        return out
    }
}
