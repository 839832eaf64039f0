import AlbumCore
import AlbumMetadata

/// The smaller copies a camera JPEG carries: the MPF "large thumbnail" images (CIPA DC-007:
/// an APP2 `MPF\0` segment whose MP Entry table points at JPEGs appended after the main image)
/// and the EXIF IFD1 thumbnail. Decoding one of them instead of the full image is the cheapest
/// shrink-on-load there is.
enum EmbeddedPreviews {
    /// Byte ranges of the embedded JPEGs of the original, in file order; only ranges inside the
    /// file that start with a JPEG SOI marker are returned. Reads the header segments (only the
    /// bodies of EXIF and MPF ones) and two bytes at each range, nothing else.
    static func find(in original: Original) throws(ThumbnailError) -> [Range<Int>] {
        try find(in: JPEGHeaderSegments(original), of: original)
    }

    /// The same, from the original's header segments read already.
    static func find(in header: JPEGHeaderSegments, of original: Original) throws(ThumbnailError) -> [Range<Int>] {
        var out: [Range<Int>] = []
        for segment in header.segments {
            let body = segment.offset
            if segment.marker == 0xE2, hasPrefix(segment.body, 0, Array("MPF\0".utf8)) {
                out += mpfImages(segment.body, tiff: 4).map { ($0.lowerBound + body)..<($0.upperBound + body) }
            } else if segment.marker == 0xE1, hasPrefix(segment.body, 0, Array("Exif\0\0".utf8)) {
                out += exifThumbnail(segment.body, tiff: 6).map { ($0.lowerBound + body)..<($0.upperBound + body) }
            }
        }
        var found: [Range<Int>] = []
        for range in out where range.lowerBound >= 0 && range.upperBound <= original.count && range.count > 4 {
            if try original.read(range.lowerBound, 2) == [0xFF, 0xD8] { found.append(range) }
        }
        return found
    }

    static func hasPrefix(_ data: [UInt8], _ at: Int, _ prefix: [UInt8]) -> Bool {
        at + prefix.count <= data.count && Array(data[at..<at + prefix.count]) == prefix
    }

    /// Reads TIFF integers in the block's byte order, bounds-checked.
    struct TIFF {
        let data: [UInt8]
        let start: Int
        let end: Int
        let little: Bool

        init?(_ data: [UInt8], start: Int, end: Int) {
            guard start + 8 <= end else { return nil }
            self.data = data
            self.start = start
            self.end = end
            if data[start] == 0x49 && data[start + 1] == 0x49 { little = true } else if data[start] == 0x4D && data[start + 1] == 0x4D {
                little = false
            } else { return nil }
        }

        func u16(_ at: Int) -> Int? {
            let p = start + at
            guard at >= 0, p + 2 <= end else { return nil }
            return little ? Int(data[p]) | Int(data[p + 1]) << 8 : Int(data[p]) << 8 | Int(data[p + 1])
        }

        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }

        /// (tag, count, value-or-offset, where the entry is) of each entry of the IFD at `at`.
        func entries(_ at: Int) -> [(tag: Int, count: Int, value: Int, entry: Int)] {
            guard let n = u16(at), n < 512 else { return [] }
            return (0..<n).compactMap { i in
                let e = at + 2 + i * 12
                guard let tag = u16(e), let count = u32(e + 4), let value = u32(e + 8) else { return nil }
                return (tag, count, value, e)
            }
        }

        /// The bytes of an entry whose value fits its 4-byte field (a short ASCII).
        func inline(_ entry: Int) -> [UInt8]? {
            let p = start + entry + 8
            guard entry >= 0, p + 4 <= end else { return nil }
            return Array(data[p..<p + 4])
        }
    }

    /// MP types (CIPA DC-007, the low 24 bits of an MP entry's attribute) of the images that are
    /// the picture made smaller: the "large thumbnails" cameras append (VGA and full-HD sized).
    /// Any other appended image is something else with the same shape: the gain map of an Ultra
    /// HDR (Android) or HDR (iPhone) photo (type 0, "undefined": a grey map that thumbnailed
    /// would replace the photo), the other eye of a 3D camera's MPO, a panorama's frames.
    static let largeThumbnailTypes: Set<Int> = [0x010001, 0x010002]

    /// MP Entry (0xB002) in an MPF segment's body: 16 bytes per image (attribute, size, offset,
    /// two dependent entries); offsets are relative to the MPF TIFF header (images appended after
    /// the main one, so past the segment), and the first image (the main one, offset 0) is
    /// skipped, as is every image that is no large thumbnail in JPEG (format bits 24–26 zero). A
    /// table reaching past the segment is broken.
    static func mpfImages(_ segment: [UInt8], tiff: Int) -> [Range<Int>] {
        guard let t = TIFF(segment, start: tiff, end: segment.count), let ifd = t.u32(4) else { return [] }
        guard let entry = t.entries(ifd).first(where: { $0.tag == 0xB002 }), entry.count % 16 == 0,
              entry.value + entry.count <= t.end - t.start else { return [] }
        var out: [Range<Int>] = []
        for i in 1..<max(1, entry.count / 16) {
            let e = entry.value + i * 16
            guard let attribute = t.u32(e), largeThumbnailTypes.contains(attribute & 0xFF_FFFF), attribute >> 24 & 7 == 0,
                  let size = t.u32(e + 4), let offset = t.u32(e + 8), offset > 0, size > 0 else { continue }
            out.append((tiff + offset)..<(tiff + offset + size))
        }
        return out
    }

    /// IFD1's JPEGInterchangeFormat (0x0201) and its length (0x0202), inside an EXIF segment's body.
    static func exifThumbnail(_ segment: [UInt8], tiff: Int) -> [Range<Int>] {
        guard let t = TIFF(segment, start: tiff, end: segment.count), let ifd0 = t.u32(4), let n = t.u16(ifd0),
              let ifd1 = t.u32(ifd0 + 2 + n * 12), ifd1 > 0 else { return [] }
        let e = t.entries(ifd1)
        guard let offset = e.first(where: { $0.tag == 0x0201 })?.value, let length = e.first(where: { $0.tag == 0x0202 })?.value,
              tiff + offset + length <= segment.count else { return [] }
        return [(tiff + offset)..<(tiff + offset + length)]
    }
}

/// The APP1 and APP2 segments of a JPEG's header (up to the first scan), read once for what a
/// render asks of them: where the previews are (`EmbeddedPreviews`), what colour space the EXIF
/// names (`ExifColorSpace`).
struct JPEGHeaderSegments {
    struct Segment {
        let marker: UInt8
        /// Where the body (after marker and length) starts in the file.
        let offset: Int
        let body: [UInt8]
    }

    let segments: [Segment]

    init(_ original: Original) throws(ThumbnailError) {
        var segments: [Segment] = []
        // (A segment said to reach past the file's end ends the walk: the file is cut there.)
        _ = try JPEGSegmentWalk.walk(read: { (offset, count) throws(ThumbnailError) in try original.read(Int(offset), count) }) {
            (type, body, length) throws(ThumbnailError) -> Bool in
            guard Int(body) + length <= original.count else { return false }
            if type == 0xE1 || type == 0xE2 {
                segments.append(Segment(marker: type, offset: Int(body), body: try original.read(Int(body), length)))
            }
            return true
        }
        self.segments = segments
    }

    /// The first EXIF segment's body (`Exif\0\0` and the TIFF block).
    var exif: [UInt8]? {
        segments.first { $0.marker == 0xE1 && EmbeddedPreviews.hasPrefix($0.body, 0, Array("Exif\0\0".utf8)) }?.body
    }
}

/// What an EXIF block says of the colour space of a JPEG that carries no ICC profile.
enum ExifColorSpace {
    /// DCF's "option file" colour space: ColorSpace (0xA001) 0xFFFF, uncalibrated, with the
    /// InteropIndex (0x0001 of the Interop IFD, 0xA005) "R03": Adobe RGB (1998). What Canon and
    /// Sony cameras set to Adobe RGB write, with no profile (exiftool reads it so: "R03 - DCF
    /// option file (Adobe RGB)"). ColorSpace 1 is sRGB; anything else says nothing.
    static func isAdobeRGB(_ exif: [UInt8]) -> Bool {
        guard let t = EmbeddedPreviews.TIFF(exif, start: 6, end: exif.count), let ifd0 = t.u32(4),
              let exifIFD = t.entries(ifd0).first(where: { $0.tag == 0x8769 })?.value else { return false }
        let entries = t.entries(exifIFD)
        guard let space = entries.first(where: { $0.tag == 0xA001 }), t.u16(space.entry + 8) == 0xFFFF,
              let interop = entries.first(where: { $0.tag == 0xA005 })?.value,
              let index = t.entries(interop).first(where: { $0.tag == 0x0001 }), index.count <= 4,
              let text = t.inline(index.entry) else { return false }
        return text[0..<3].elementsEqual("R03".utf8)
    }
}
