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
    ]) { a, _ in a }
    static let gpsTags: [Int: String] = [0x0007: "GPSTimeStamp", 0x001D: "GPSDateStamp"]

    /// Bytes per value of each TIFF field type (1-based; unknown types: 1).
    static let typeSizes = [1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8]

    /// The names of what the rules use that lies past the end of `block` (`Exif\0\0` and TIFF
    /// data cut short): whole IFDs, or values of the tags above. Empty: nothing used was lost.
    static func unread(in block: [UInt8]) -> [String] {
        guard let tiff = TIFFFields(block, at: 6), let ifd0 = tiff.u32(tiff.start + 4) else { return ["TIFF header"] }
        var lost: [String] = []
        walk(tiff, ifd0, "IFD0", ifd0Tags, into: &lost)
        return lost
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
