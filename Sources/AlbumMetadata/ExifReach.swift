/// What of an EXIF block the rules use lies past its end: for a block read only as far as the
/// per-file cap (`MetadataLimits`), whether the cut cost anything.
///
/// Writers put the IFDs first and an embedded thumbnail last (a phone HEIC's EXIF item is
/// ~190 KB for its thumbnail): a cut there loses nothing the rules read, and says nothing.
enum ExifReach {
    /// The tags `ExifBlock.read(into:)` reads, by IFD, with the names said when one is lost. The
    /// pointers lead to the EXIF and GPS IFDs; the maker note holds Apple's Live Photo identifier.
    static let ifd0Tags: [Int: String] = [
        0x010F: "Make", 0x0110: "Model", 0x0131: "Software", 0x0112: "Orientation", 0x0132: "DateTime",
        0x9003: "DateTimeOriginal", 0x9004: "DateTimeDigitized", 0x9010: "OffsetTime", 0x9011: "OffsetTimeOriginal",
        0x9012: "OffsetTimeDigitized", 0x9291: "SubSecTimeOriginal", 0x9292: "SubSecTimeDigitized",
    ]
    static let exifTags: [Int: String] = ifd0Tags.filter { $0.key >= 0x9000 }.merging([
        0x9286: "UserComment", 0x829A: "ExposureTime", 0x829D: "FNumber", 0x8827: "ISO", 0x927C: "MakerNote",
        0xA401: "CustomRendered", 0xA434: "LensModel",
    ]) { a, _ in a }
    static let gpsTags: [Int: String] = [0x0007: "GPSTimeStamp", 0x001D: "GPSDateStamp", 0x0001: "GPSLatitudeRef", 0x0002: "GPSLatitude",
                                         0x0003: "GPSLongitudeRef", 0x0004: "GPSLongitude"]

    /// Bytes per value of each TIFF field type (1-based; unknown types: 1).
    static let typeSizes = [1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8]

    /// The names of what the rules use that lies past the end of `block` (`Exif\0\0` and TIFF
    /// data cut short): whole IFDs, or values of the tags above. Empty: nothing used was lost.
    static func unread(in block: [UInt8]) -> [String] {
        guard let tiff = TIFFFields(block, at: 6), let ifd0 = tiff.u32(tiff.start + 4) else { return ["TIFF header"] }
        var lost: [String] = []
        walk(tiff, ifd0, "IFD0", ifd0Tags, into: &lost)
        // Only Apple's maker note holds something the rules read (the Live Photo identifier).
        if lost.contains("MakerNote"), !isApple(tiff, ifd0) { lost.removeAll { $0 == "MakerNote" } }
        return lost
    }

    /// Whether IFD0's Make starts with `Apple`.
    private static func isApple(_ tiff: TIFFFields, _ ifd0: Int) -> Bool {
        // (Five bytes or more: the value lies out of line, at its offset.)
        guard let entry = tiff.entry(0x010F, inIFDAt: ifd0), let count = tiff.u32(entry + 4), count >= 5,
              let offset = tiff.u32(entry + 8), tiff.start + offset + 5 <= tiff.bytes.count else { return false }
        let at = tiff.start + offset
        return tiff.bytes[at..<(at + 5)].elementsEqual("Apple".utf8)
    }

    private static func walk(_ tiff: TIFFFields, _ ifd: Int, _ name: String, _ used: [Int: String], into lost: inout [String]) {
        guard let n = tiff.u16(tiff.start + ifd), tiff.start + ifd + 2 + 12 * n <= tiff.bytes.count else { return lost.append(name) }
        for i in 0..<n {
            let at = tiff.start + ifd + 2 + 12 * i
            guard let tag = tiff.u16(at), let type = tiff.u16(at + 2), let count = tiff.u32(at + 4), let value = tiff.u32(at + 8) else { continue }
            if name == "IFD0" && (tag == 0x8769 || tag == 0x8825) {
                walk(tiff, value, tag == 0x8769 ? "Exif IFD" : "GPS IFD", tag == 0x8769 ? exifTags : gpsTags, into: &lost)
                continue
            }
            guard let tagName = used[tag] else { continue }
            let size = (type >= 1 && type <= typeSizes.count ? typeSizes[type - 1] : 1) * count
            if size > 4 && tiff.start + value + size > tiff.bytes.count { lost.append(tagName) }
        }
    }
}

extension ExifReach {
    /// How much of a block libexif reads: the first 64 KiB (`exif_data_load_data` caps it there,
    /// a JPEG segment's most); offsets past it are dropped.
    static let libexifReach = 0xFFFE

    /// The block as libexif can read it whole: unchanged when it is within `libexifReach`, else
    /// a new block of the IFD0, EXIF and GPS entries the rules read and their values, each
    /// copied in the block's byte order with its offsets made anew (a HEIF EXIF item or a
    /// multi-segment JPEG EXIF of more than 64 KiB keeps what lies past 64 KiB).
    static func withinReach(_ block: [UInt8]) -> [UInt8] {
        guard block.count > libexifReach, let tiff = TIFFFields(block, at: 6), let ifd0 = tiff.u32(tiff.start + 4) else { return block }
        let exifAt = pointer(tiff, ifd0, 0x8769), gpsAt = pointer(tiff, ifd0, 0x8825)
        var ifds = [entries(tiff, ifd0, ifd0Tags), exifAt.map { entries(tiff, $0, exifTags) } ?? [], gpsAt.map { entries(tiff, $0, gpsTags) } ?? []]
        // Placeholders for the pointers, filled once the IFDs are placed.
        let pointerTags = [(0x8769, 1), (0x8825, 2)].filter { !ifds[$0.1].isEmpty }
        for (tag, _) in pointerTags { ifds[0].append(Entry(tag: tag, type: 4, count: 1, inline: [0, 0, 0, 0], data: nil)) }
        ifds[0].sort { $0.tag < $1.tag }
        var out = Array(block[6..<14])
        out.replaceSubrange(4..<8, with: tiff.bytes32(8))
        var placed = [Int](repeating: 0, count: 3)
        for (i, entries) in ifds.enumerated() where i == 0 || !entries.isEmpty {
            placed[i] = out.count
            let dataStart = out.count + 2 + 12 * entries.count + 4
            var data: [UInt8] = []
            out += tiff.bytes16(entries.count)
            for e in entries {
                out += tiff.bytes16(e.tag) + tiff.bytes16(e.type) + tiff.bytes32(e.count)
                if let bytes = e.data {
                    out += tiff.bytes32(dataStart + data.count)
                    data += bytes
                    if data.count % 2 == 1 { data.append(0) }
                } else {
                    out += e.inline
                }
            }
            out += tiff.bytes32(0) + data
        }
        for (tag, i) in pointerTags {
            guard let at = ifds[0].firstIndex(where: { $0.tag == tag }) else { continue }
            out.replaceSubrange((placed[0] + 2 + 12 * at + 8)..<(placed[0] + 2 + 12 * at + 12), with: tiff.bytes32(placed[i]))
        }
        return Array(block[0..<6]) + out
    }

    struct Entry {
        let tag: Int, type: Int, count: Int
        let inline: [UInt8]
        let data: [UInt8]?
    }

    private static func pointer(_ tiff: TIFFFields, _ ifd: Int, _ tag: Int) -> Int? {
        tiff.entry(tag, inIFDAt: ifd).flatMap { tiff.u32($0 + 8) }
    }

    /// The entries of the IFD at `ifd` whose tags are in `used` and whose values lie in the block.
    private static func entries(_ tiff: TIFFFields, _ ifd: Int, _ used: [Int: String]) -> [Entry] {
        guard let n = tiff.u16(tiff.start + ifd) else { return [] }
        var found: [Entry] = []
        for i in 0..<min(n, 1000) {
            let at = tiff.start + ifd + 2 + 12 * i
            guard at + 12 <= tiff.bytes.count, let tag = tiff.u16(at), used[tag] != nil, tag != 0x927C,
                  let type = tiff.u16(at + 2), let count = tiff.u32(at + 4), let value = tiff.u32(at + 8) else { continue }
            let size = (type >= 1 && type <= typeSizes.count ? typeSizes[type - 1] : 1) * count
            if size <= 4 {
                found.append(Entry(tag: tag, type: type, count: count, inline: Array(tiff.bytes[(at + 8)..<(at + 12)]), data: nil))
            } else if size <= 1 << 16, tiff.start + value + size <= tiff.bytes.count {
                found.append(Entry(tag: tag, type: type, count: count, inline: [], data: Array(tiff.bytes[(tiff.start + value)..<(tiff.start + value + size)])))
            }
        }
        return found
    }
}

extension TIFFFields {
    func bytes16(_ v: Int) -> [UInt8] {
        bigEndian ? [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)]
    }

    func bytes32(_ v: Int) -> [UInt8] {
        bigEndian ? bytes16(v >> 16) + bytes16(v & 0xFFFF) : bytes16(v & 0xFFFF) + bytes16(v >> 16)
    }
}
