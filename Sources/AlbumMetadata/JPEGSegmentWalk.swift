import AlbumCore

/// The walk of a JPEG header's marker segments, from after SOI to the first scan: the one place
/// albumfs steps from marker to marker. The scan reads EXIF, XMP and the frame size on it
/// (`JPEGHeader`), a thumbnail's render the APP1 and APP2 bodies (`JPEGHeaderSegments`: previews,
/// colour space); each asks for the bodies it wants and no more.
public enum JPEGSegmentWalk {
    /// Fill bytes (0xFF) skipped before one marker at most. Encoders write none or a few; a run of
    /// thousands is no header but erased flash (a damaged card reads as 0xFF), and each byte is
    /// a read of its own.
    public static let maxFillBytes = 4096
    /// Segments walked at most: a real header has a few dozen; the bound stops a crafted file
    /// from looping.
    public static let maxSegments = 512
    /// Stray bytes looked through for the next marker where one should be: writers that get a
    /// segment's length a few bytes short leave its last bytes there. libjpeg skips them with a
    /// warning ("extraneous bytes before marker"), exiftool too ("Skipped unknown bytes").
    public static let maxStrayBytes = 256

    /// How a walk ended.
    public enum End: Sendable, Equatable {
        /// At the first scan (SOS) or an end of image (EOI): the header is whole.
        case scan
        /// At no marker where one must be: the file ends there, or holds something else.
        case damaged
        /// `visit` asked to stop.
        case stopped
    }

    /// Calls `visit(marker, bodyOffset, bodyLength)` for each segment with a length, in file
    /// order, until the first scan. `read(offset, count)` gives up to `count` bytes at `offset`
    /// (fewer at the end of the file); `visit` returns false to stop there. Markers without a
    /// length (RST0–7, TEM) are stepped over, fill bytes before a marker skipped, and so are a
    /// few stray bytes where a marker should be (`maxStrayBytes`).
    /// - Parameter prefix: the file's first bytes, already in memory (a scan has read them):
    ///   markers inside it are read from it, not through `read` (which returns a fresh array: a
    ///   dozen allocations per photo; docs/benchmarks.md).
    @inlinable
    public static func walk<E: Error>(prefix: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0),
                                      read: (Int64, Int) throws(E) -> [UInt8],
                                      visit: (_ marker: UInt8, _ bodyOffset: Int64, _ bodyLength: Int) throws(E) -> Bool) throws(E) -> End {
        var offset: Int64 = 2  // after SOI
        for _ in 0..<maxSegments {
            var marker = try MarkerBytes(at: offset, prefix: prefix, read: read)
            var fill = 0
            while marker.count >= 2, marker.b0 == 0xFF, marker.b1 == 0xFF, fill < maxFillBytes {
                offset += 1
                fill += 1
                marker = try MarkerBytes(at: offset, prefix: prefix, read: read)
            }
            guard marker.count >= 2, marker.b0 == 0xFF, marker.b1 != 0xFF, marker.b1 != 0 else {
                // (Not after a run of fill bytes past the bound: erased flash, no header.)
                guard fill < maxFillBytes, let next = try nextMarker(after: offset, read: read) else { return .damaged }
                offset = next
                continue
            }
            let type = marker.b1
            if type == 0xDA || type == 0xD9 { return .scan }
            if (0xD0...0xD7).contains(type) || type == 0x01 {
                offset += 2
                continue
            }
            guard marker.count == 4 else { return .damaged }
            let length = Int(marker.b2) << 8 | Int(marker.b3)
            guard length >= 2 else { return .damaged }
            guard try visit(type, offset + 4, length - 2) else { return .stopped }
            offset += 2 + Int64(length)
        }
        return .damaged
    }

    /// Where the first marker (0xFF and a byte that is neither 0 nor 0xFF) within
    /// `maxStrayBytes` of `offset` starts; nil when there is none (the file ends, or holds
    /// something else).
    @usableFromInline
    static func nextMarker<E: Error>(after offset: Int64, read: (Int64, Int) throws(E) -> [UInt8]) throws(E) -> Int64? {
        let bytes = try read(offset, maxStrayBytes + 2)
        guard bytes.count >= 2 else { return nil }
        for i in 0..<(bytes.count - 1) where bytes[i] == 0xFF && bytes[i + 1] != 0 && bytes[i + 1] != 0xFF {
            return offset + Int64(i)
        }
        return nil
    }

    /// The (up to) four bytes of a marker and its length field, by value.
    @usableFromInline
    struct MarkerBytes {
        @usableFromInline var b0: UInt8 = 0, b1: UInt8 = 0, b2: UInt8 = 0, b3: UInt8 = 0
        /// How many of the four the file has there (fewer: it ends).
        @usableFromInline var count = 0

        @inlinable
        init<E: Error>(at offset: Int64, prefix: UnsafeRawBufferPointer, read: (Int64, Int) throws(E) -> [UInt8]) throws(E) {
            if offset >= 0, offset + 4 <= Int64(prefix.count) {
                let i = Int(offset)
                (b0, b1, b2, b3, count) = (prefix[i], prefix[i + 1], prefix[i + 2], prefix[i + 3], 4)
                return
            }
            let bytes = try read(offset, 4)
            count = min(4, bytes.count)
            if count > 0 { b0 = bytes[0] }
            if count > 1 { b1 = bytes[1] }
            if count > 2 { b2 = bytes[2] }
            if count > 3 { b3 = bytes[3] }
        }
    }
}
