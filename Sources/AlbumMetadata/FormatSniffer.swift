import AlbumCore

/// Recognises image and video formats by their first bytes, never by extension.
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

    /// `ftyp` major brands of sound-only files (iTunes' and Adobe's audio and audiobooks): not videos.
    static let audioBrands: Set<String> = ["M4A ", "M4B ", "M4P ", "F4A ", "F4B "]
    /// The first box of a QuickTime movie written without `ftyp` (cameras and QuickTime before 2005).
    static let quickTimeFirstBoxes: Set<String> = ["moov", "mdat", "wide"]

    /// A video is any other ISO base media file (MP4, QuickTime, 3GP, M4V: the brands are too many
    /// to list): whether it holds a video track is the header's to say (`VideoHeader`).
    public static func sniff(_ header: some Collection<UInt8>) -> ImageFormat? {
        let b = Array(header.prefix(headerLength))
        if b.count >= 3, b[0] == 0xFF, b[1] == 0xD8, b[2] == 0xFF { return .jpeg }
        if b.count >= 8, b == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return .png }
        if WebPHeader.isWebP(header) { return .webp }
        if GIFHeader.isGIF(header) { return .gif }
        // (A RAW on plain TIFF is told apart by its IFD0: `MetadataReader`.)
        if TIFFHeader.isTIFF(header) { return .tiff }
        if JXLHeader.isJXL(header.prefix(JXLHeader.containerSignature.count)) { return .jxl }
        if RawContainer.sniff(header) != nil { return .raw }
        guard b.count == 8 else { return nil }
        let firstBox = String(decoding: b[4...], as: UTF8.self)
        if firstBox == "ftyp" {
            let box = Array(header.prefix(longestFileType))
            if isHEIF(fileType: box) { return .heif }
            guard box.count >= 12, !audioBrands.contains(String(decoding: box[8..<12], as: UTF8.self)) else { return nil }
            return .video
        }
        return quickTimeFirstBoxes.contains(firstBox) ? .video : nil
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
