import AlbumCore

/// The parts of a HEIF image (HEIC, HEIF, AVIF) that albumfs reads: the primary image's EXIF and
/// XMP items and its size.
///
/// Only the `meta` box and the bytes of the two metadata items are read, never the image data
/// (`HEIFContainer`, `HEIFItemTable`: libheif 1.15 would read the whole file); the EXIF itself is
/// libexif's to parse, as a JPEG's is.
public struct HEIFHeader {
    /// The EXIF item's TIFF data, prefixed with `Exif\0\0` for libexif.
    public var exif: [UInt8]?
    /// The XMP item (`mime`, `application/rdf+xml`).
    public var xmp: String?
    /// The primary image's size as coded (`ispe`), before any rotation.
    public var width: Int?
    public var height: Int?
    /// Whether the file ended, or a box did, before what it said it held.
    public var truncated = false
    /// Whether the file has a movie box (`moov`) beside its images, as some phones' HEIFs do:
    /// its movie header and QuickTime Keys date the photo as a video's do (`VideoHeader`).
    public var hasMovie = false
    /// Metadata items read only as far as the per-file cap (`MetadataLimits`), by type.
    public var overCap: [String] = []
    /// Whether the file holds no primary image to decode, from its boxes alone: no `meta` box
    /// (the file ends before it, or has none), no primary item, or its coded data past the end.
    public var imageMissing = false

    /// A metadata item is read up to this many bytes (`MetadataLimits`: real ones are kilobytes,
    /// a phone's EXIF with its thumbnail ~190 KB); half the cap each, for EXIF and XMP.
    static let largestMetadata = MetadataLimits.perFile / 2

    /// - Parameters:
    ///   - size: the file's length (a box may say "to the end of the file").
    ///   - read: reads `count` bytes at an offset (fewer at end of file).
    public init<E: Error>(size: Int64, read: (Int64, Int) throws(E) -> [UInt8]) throws(E) {
        let container = try HEIFContainer(size: size, read: read)
        truncated = container.truncated
        hasMovie = container.boxes.contains { $0.type == "moov" }
        if !hasMovie { hasMovie = try Self.movieFollows(container, size: size, read: read) }
        // (A `meta` box over the scan's limit is not read: nothing is known of its items.)
        imageMissing = container.items?.primaryDataMissing(fileSize: size) ?? !container.boxes.contains { $0.type == "meta" }
        guard let items = container.items else { return }
        width = items.primarySize?.width
        height = items.primarySize?.height
        if let exifItem = items.primaryMetadata(type: "Exif") {
            exif = Self.exifBlock(try metadata(exifItem))
        }
        if let xmpItem = items.primaryMetadata(type: "mime", contentType: "application/rdf+xml") {
            xmp = String(decoding: try metadata(xmpItem), as: UTF8.self)
        }

        /// A metadata item's bytes, at most `largestMetadata` (more: named in `overCap`); fewer
        /// than that or than it says: the file is cut short.
        func metadata(_ item: HEIFItemTable.Item) throws(E) -> [UInt8] {
            let data = try items.bytes(of: item, limit: Self.largestMetadata, read: read)
            if data.count < min(item.length, Self.largestMetadata) {
                truncated = true
            } else if item.length > Self.largestMetadata {
                overCap.append(item.type)
            }
            return data
        }
    }

    /// Whether a movie box follows the `meta` box among the top-level boxes (one small read
    /// each, a handful of boxes; a box cut short ends the look, the image data is no concern of
    /// the scan's).
    static func movieFollows<E: Error>(_ container: HEIFContainer, size: Int64, read: (Int64, Int) throws(E) -> [UInt8]) throws(E) -> Bool {
        guard var offset = container.metaEnd else { return false }
        for _ in 0..<HEIFContainer.topLevelBoxes where offset < size {
            guard let box = ISOBoxHeader(try read(offset, 16), at: 0, fileEnd: size - offset) else { return false }
            if box.type == "moov" { return true }
            offset += box.length
        }
        return false
    }

    /// An EXIF item's data as libexif reads it: the item starts with the offset of the TIFF
    /// header from after those four bytes (ISO/IEC 23008-12, A.2.1), usually 6: an `Exif\0\0`
    /// that libexif also wants. A TIFF header elsewhere gets the prefix put in front.
    static func exifBlock(_ item: [UInt8]) -> [UInt8]? {
        guard let skip = item.be32(0), skip <= item.count - 4 else { return nil }
        let tiff = 4 + skip
        if skip >= 6, item.starts(with: JPEGHeader.exifSignature, at: tiff - 6) { return Array(item[(tiff - 6)...]) }
        if item.starts(with: JPEGHeader.exifSignature, at: tiff) { return Array(item[tiff...]) }
        return JPEGHeader.exifSignature + item[tiff...]
    }
}

