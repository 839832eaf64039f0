/// Thumbnails have one exact size per box, known before anything is rendered, so `stat`, `tar`,
/// `rsync` and `sendfile` see the true size from the first look (docs/thumbnails.md).
///
/// The JPEG is encoded, then padded to the size with COM (comment) segments before EOI; if it
/// does not fit, it is encoded again at a lower quality.
public enum FixedSizeJPEG {
    /// Bytes reserved per pixel of the box: 0.75 holds a 4:2:0 JPEG at quality 85 of almost any
    /// photo; the rare noisy image steps down in quality instead.
    public static func size(for width: Int, _ height: Int) -> Int {
        max(8192, width * height * 3 / 4)
    }

    static let qualities = [85, 75, 60, 45, 30, 15, 5]

    /// `profile`, when given, goes in after the JFIF header (`ColorProfile`); should no quality
    /// leave room for it, the thumbnail is made without it rather than not at all.
    static func encode(_ image: RGBImage, size: Int, profile: ColorProfile? = nil, encoder: JPEGEncoder) throws(ThumbnailError) -> [UInt8] {
        for carried in profile.map({ [$0, nil] }) ?? [nil] {
            for q in qualities {
                var jpeg = try encoder.encode(image, quality: q)
                if let carried { jpeg = carried.embedded(in: jpeg) }
                let gap = size - jpeg.count
                // A COM segment is at least 4 bytes; a gap of 1–3 cannot be filled.
                if gap == 0 || gap >= 4 { return pad(jpeg, to: size) }
            }
        }
        throw ThumbnailError("no quality fits \(size) bytes")
    }

    /// Inserts COM segments before the final EOI (FF D9) until the file is exactly `size` bytes.
    static func pad(_ jpeg: [UInt8], to size: Int) -> [UInt8] {
        var gap = size - jpeg.count
        guard gap > 0 else { return jpeg }
        var out = Array(jpeg.dropLast(2))
        out.reserveCapacity(size)
        while gap > 0 {
            // Each segment: FF FE, 2 length bytes (counting themselves), payload ≤ 65533.
            var segment = min(gap, 65_537)
            if (1...3).contains(gap - segment) { segment -= 4 }
            let length = segment - 2
            out += [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)]
            out += [UInt8](repeating: 0x20, count: segment - 4)
            gap -= segment
        }
        return out + [0xFF, 0xD9]
    }
}
