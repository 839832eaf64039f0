/// The walk of a JPEG header's marker segments, from after SOI to the first scan: the one place
/// albumfs steps from marker to marker. The scan reads EXIF, XMP and the frame size on it
/// (`JPEGHeader`), a thumbnail's render the APP1 and APP2 bodies (`JPEGHeaderSegments`: previews,
/// colour space); each asks for the bodies it wants and no more.
public enum JPEGSegmentWalk {
    /// Fill bytes (0xFF) skipped before one marker at most. Encoders write none or a few; a run of
    /// thousands is no header but erased flash (a damaged card reads as 0xFF), and each byte was
    /// a read of its own (4 MB of them took a reader 2 s).
    public static let maxFillBytes = 4096
    /// Segments walked at most: a real header has a few dozen; the bound stops a crafted file
    /// from looping.
    public static let maxSegments = 512

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
    /// length (RST0–7, TEM) are stepped over, fill bytes before a marker skipped.
    @inlinable
    public static func walk<E: Error>(read: (Int64, Int) throws(E) -> [UInt8],
                                      visit: (_ marker: UInt8, _ bodyOffset: Int64, _ bodyLength: Int) throws(E) -> Bool) throws(E) -> End {
        var offset: Int64 = 2  // after SOI
        for _ in 0..<maxSegments {
            var marker = try read(offset, 4)
            var fill = 0
            while marker.count >= 2, marker[0] == 0xFF, marker[1] == 0xFF, fill < maxFillBytes {
                offset += 1
                fill += 1
                marker = try read(offset, 4)
            }
            guard marker.count >= 2, marker[0] == 0xFF, marker[1] != 0xFF else { return .damaged }
            let type = marker[1]
            if type == 0xDA || type == 0xD9 { return .scan }
            if (0xD0...0xD7).contains(type) || type == 0x01 {
                offset += 2
                continue
            }
            guard marker.count == 4 else { return .damaged }
            let length = Int(marker[2]) << 8 | Int(marker[3])
            guard length >= 2 else { return .damaged }
            guard try visit(type, offset + 4, length - 2) else { return .stopped }
            offset += 2 + Int64(length)
        }
        return .damaged
    }
}
