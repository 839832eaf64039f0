/// The smaller copies a camera JPEG carries: the MPF "large thumbnail" images (CIPA DC-007:
/// an APP2 `MPF\0` segment whose MP Entry table points at JPEGs appended after the main image)
/// and the EXIF IFD1 thumbnail. Decoding one of them instead of the full image is the cheapest
/// shrink-on-load there is.
enum EmbeddedPreviews {
    /// Byte ranges of the embedded JPEGs of the original, in file order; only ranges inside the
    /// file that start with a JPEG SOI marker are returned. Reads the header segments (only the
    /// bodies of EXIF and MPF ones) and two bytes at each range, nothing else.
    static func find(in original: Original) throws(ThumbnailError) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var offset = 2
        // Walk the header segments up to the first scan.
        for _ in 0..<256 {
            let marker = try original.read(offset, 4)
            guard marker.count == 4, marker[0] == 0xFF else { break }
            let type = marker[1]
            if type == 0xDA || type == 0xD9 { break }
            let length = Int(marker[2]) << 8 | Int(marker[3])
            guard length >= 2, offset + 2 + length <= original.count else { break }
            let body = offset + 4
            if type == 0xE1 || type == 0xE2 {
                let segment = try original.read(body, length - 2)
                if type == 0xE2, hasPrefix(segment, 0, Array("MPF\0".utf8)) {
                    out += mpfImages(segment, tiff: 4).map { ($0.lowerBound + body)..<($0.upperBound + body) }
                } else if type == 0xE1, hasPrefix(segment, 0, Array("Exif\0\0".utf8)) {
                    out += exifThumbnail(segment, tiff: 6).map { ($0.lowerBound + body)..<($0.upperBound + body) }
                }
            }
            offset += 2 + length
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

        /// (tag, type, count, value-or-offset) of each entry of the IFD at `at`.
        func entries(_ at: Int) -> [(tag: Int, count: Int, value: Int)] {
            guard let n = u16(at), n < 512 else { return [] }
            return (0..<n).compactMap { i in
                let e = at + 2 + i * 12
                guard let tag = u16(e), let count = u32(e + 4), let value = u32(e + 8) else { return nil }
                return (tag, count, value)
            }
        }
    }

    /// MP Entry (0xB002) in an MPF segment's body: 16 bytes per image; offsets are relative to the
    /// MPF TIFF header (images appended after the main one, so past the segment), and the first
    /// image (the main one, offset 0) is skipped. A table reaching past the segment is broken.
    static func mpfImages(_ segment: [UInt8], tiff: Int) -> [Range<Int>] {
        guard let t = TIFF(segment, start: tiff, end: segment.count), let ifd = t.u32(4) else { return [] }
        guard let entry = t.entries(ifd).first(where: { $0.tag == 0xB002 }), entry.count % 16 == 0 else { return [] }
        var out: [Range<Int>] = []
        for i in 1..<max(1, entry.count / 16) {
            let e = entry.value + i * 16
            guard let size = t.u32(e + 4), let offset = t.u32(e + 8), offset > 0, size > 0 else { continue }
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
