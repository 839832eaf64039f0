import AlbumCore

/// Recognises image formats by their first bytes, never by extension.
public enum FormatSniffer {
    /// How many leading bytes `sniff` needs for JPEG and PNG (a HEIF file's `ftyp` box is longer,
    /// and read as far as it is there).
    public static let headerLength = 8

    /// The `ftyp` brands of HEIF still images (ISO/IEC 23008-12: `mif1`, `mif2`; HEVC-coded
    /// `heic`, `heix` and their multi-layer kinds; AV1-coded `avif`). Sequences only (`msf1`,
    /// `hevc`, `avis`) are videos unless they also name one of these; MP4 and QuickTime name none.
    static let heifBrands: Set<String> = ["mif1", "mif2", "heic", "heix", "heim", "heis", "avif"]
    /// The longest `ftyp` box looked at (real ones list a handful of brands: 24 to 40 bytes).
    static let longestFileType = 256

    public static func sniff(_ header: some Collection<UInt8>) -> ImageFormat? {
        let b = Array(header.prefix(headerLength))
        if b.count >= 3, b[0] == 0xFF, b[1] == 0xD8, b[2] == 0xFF { return .jpeg }
        if b.count >= 8, b == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return .png }
        if b.count == 8, b[4...].elementsEqual("ftyp".utf8), isHEIF(fileType: Array(header.prefix(longestFileType))) { return .heif }
        return nil
    }

    /// Whether an `ftyp` box (the file's first bytes) names a HEIF still-image brand, major or
    /// compatible.
    static func isHEIF(fileType box: [UInt8]) -> Bool {
        guard let size = box.be32(0), size >= 16 else { return false }
        let end = min(size, box.count)
        let brand = { (at: Int) in String(decoding: box[at..<(at + 4)], as: UTF8.self) }
        if end >= 12, heifBrands.contains(brand(8)) { return true }
        // Major brand (8), minor version (12), then the compatible brands.
        return stride(from: 16, through: end - 4, by: 4).contains { heifBrands.contains(brand($0)) }
    }
}
