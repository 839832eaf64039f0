import AlbumMetadata
import AlbumSystem
import Glibc

/// Where a baseline JPEG with restart markers can be cut into bands of MCU rows, each decoded by
/// a decoder of its own, side by side. Entropy decoding is a serial chain through the whole scan
/// (neither the DCT scale nor a crop skips it), and most of a thumbnail's time; a restart marker
/// (DRI, RSTn: Samsung's phones, Photoshop, many cameras write them) resets it on a byte
/// boundary, so a decoder can start there. libjpeg decodes from the start of an image only: a
/// band is handed to it as an image of its own, the header with the band's height followed by
/// its restart intervals (`albumfs_jpeg_new_band`).
///
/// Only intervals that start an MCU row can start a band (libjpeg decodes whole rows). A file
/// whose markers are not where the header says they must be (damaged, cut short) has none:
/// decoded in one piece, where libjpeg's recovery from damage applies.
struct RestartBands {
    /// SOI, the segments a decoder needs (tables, frame, restart interval, JFIF and Adobe
    /// markers) and SOS, as in the file.
    let header: [UInt8]
    /// Where the frame's height is in `header` (two bytes, big-endian).
    let heightAt: Int
    let imageHeight: Int
    /// An MCU row's height in the image's pixels.
    let mcuHeight: Int
    let mcuRows: Int
    /// Each restart interval that starts an MCU row: its row, and where its data begins (just after
    /// its marker; the scan's start for row 0), relative to the JPEG's start; in row order.
    let starts: [Start]
    /// Where the scan's data ends (its EOI marker, or the end of the file).
    let dataEnd: Int

    struct Start: Equatable {
        var row: Int
        var offset: Int
    }

    /// The segments a band's decoder needs: DQT, DHT, SOF0/1, DRI, APP0 (JFIF), APP14 (Adobe: the
    /// colour transform).
    static let kept: Set<UInt8> = [0xDB, 0xC4, 0xC0, 0xC1, 0xDD, 0xE0, 0xEE]
    /// A header bigger than this is no plain camera header: not cut.
    static let maxHeaderBytes = 1 << 20

    /// The bands of `jpeg` (its header read by libjpeg), or nil: decoded from memory, not
    /// baseline Huffman in one scan, no restart interval, none that starts a row but the first,
    /// or markers not where the header says.
    init?(_ jpeg: JPEGStream) {
        guard let (fd, range) = jpeg.file, !jpeg.progressive, jpeg.scan.huffman, jpeg.scan.restartInterval > 0,
              let scanStart = jpeg.scan.start else { return nil }
        let read = { (offset: Int64, count: Int) throws(Errno) -> [UInt8] in
            let at = Int(offset)
            guard at >= 0, at < range.count, count > 0 else { return [] }
            return try PositionalRead.bytes(fd, count: min(count, range.count - at), at: Int64(range.lowerBound + at)).get()
        }
        let interval = jpeg.scan.restartInterval
        let perRow = (jpeg.width + jpeg.scan.mcuWidth - 1) / jpeg.scan.mcuWidth
        mcuHeight = jpeg.scan.mcuHeight
        mcuRows = (jpeg.height + mcuHeight - 1) / mcuHeight
        imageHeight = jpeg.height
        let intervals = (perRow * mcuRows + interval - 1) / interval
        guard let markers = Self.restarts(fd: fd, range: range, from: scanStart, most: intervals - 1),
              markers.after.count == intervals - 1 else { return nil }
        var starts = [Start(row: 0, offset: scanStart)]
        for (k, offset) in markers.after.enumerated() where ((k + 1) * interval) % perRow == 0 {
            starts.append(Start(row: (k + 1) * interval / perRow, offset: offset))
        }
        guard starts.count > 1, let (segments, sosAt) = Self.segments(read), sosAt < scanStart,
              let sos = try? read(Int64(sosAt), scanStart - sosAt), sos.count == scanStart - sosAt,
              let (header, heightAt) = Self.header(segments, sos: sos, read) else { return nil }
        self.starts = starts
        dataEnd = markers.end
        self.header = header
        self.heightAt = heightAt
    }

    /// A header segment: its marker, where its body is and how long.
    struct Segment {
        var marker: UInt8
        var body: Int
        var length: Int
    }

    typealias Read = (Int64, Int) throws(Errno) -> [UInt8]

    /// The header's segments before its first scan, and where its SOS marker is; nil when the
    /// header is damaged or has over 128 segments.
    static func segments(_ read: Read) -> (segments: [Segment], sos: Int)? {
        var segments: [Segment] = []
        var next = 2
        let visit = { (marker: UInt8, body: Int64, length: Int) throws(Errno) -> Bool in
            segments.append(Segment(marker: marker, body: Int(body), length: length))
            next = Int(body) + length
            return segments.count < 128
        }
        guard let end = try? JPEGSegmentWalk.walk(read: read, visit: visit), end == .scan else { return nil }
        return (segments, next)
    }

    /// SOI, the segments a band's decoder needs, and `sos`; and where the frame's height is in it.
    static func header(_ segments: [Segment], sos: [UInt8], _ read: Read) -> (bytes: [UInt8], heightAt: Int)? {
        var header: [UInt8] = [0xFF, 0xD8]
        var heightAt = 0
        for s in segments where kept.contains(s.marker) {
            guard let bytes = try? read(Int64(s.body - 4), s.length + 4), bytes.count == s.length + 4 else { return nil }
            if s.marker == 0xC0 || s.marker == 0xC1 { heightAt = header.count + 5 }
            header += bytes
            guard header.count <= maxHeaderBytes else { return nil }
        }
        return heightAt > 0 ? (header + sos, heightAt) : nil
    }

    /// Where the data after each restart marker begins, and where the scan's data ends, from
    /// `from` on (relative to the JPEG's start); nil at any other marker (another scan, DNL) or
    /// past `most` markers (the header's count: a crafted file's millions are never held).
    static func restarts(fd: Int32, range: Range<Int>, from: Int, most: Int) -> (after: [Int], end: Int)? {
        var after: [Int] = []
        var at = from
        let chunk = 1 << 20
        while at < range.count {
            guard case .success(let bytes) = PositionalRead.bytes(fd, count: min(chunk, range.count - at), at: Int64(range.lowerBound + at)),
                  !bytes.isEmpty else { return nil }
            var i = 0
            var cut = false
            while i < bytes.count {
                guard let ff = Self.nextFF(in: bytes, from: i) else { i = bytes.count; break }
                guard ff + 1 < bytes.count else { i = ff; cut = true; break }
                let marker = bytes[ff + 1]
                switch marker {
                case 0x00, 0xFF: i = ff + 1
                case 0xD0...0xD7:
                    guard after.count < most else { return nil }
                    after.append(at + ff + 2)
                    i = ff + 2
                case 0xD9: return (after, at + ff)
                default: return nil
                }
            }
            at += i
            if cut && at + 1 >= range.count { break }
        }
        return (after, range.count)
    }

    /// The index of the next 0xFF byte at or after `from` (`memchr`: most of a scan's bytes are
    /// passed over).
    static func nextFF(in bytes: [UInt8], from: Int) -> Int? {
        bytes.withUnsafeBytes { raw in
            guard from < raw.count, let found = memchr(raw.baseAddress! + from, 0xFF, raw.count - from) else { return nil }
            return raw.baseAddress!.distance(to: UnsafeRawPointer(found))
        }
    }

    /// The header of a band `height` pixels high.
    func header(height: Int) -> [UInt8] {
        var bytes = header
        bytes[heightAt] = UInt8(height >> 8)
        bytes[heightAt + 1] = UInt8(height & 0xFF)
        return bytes
    }

    /// One band: MCU rows [rows), its data in [data) of the JPEG.
    struct Band: Equatable {
        var rows: Range<Int>
        var data: Range<Int>
    }

    /// Up to `count` bands covering MCU rows [needed), about as many rows each: the first from
    /// the last start at or above its first row, each cut at the start nearest its share.
    func bands(covering needed: Range<Int>, count: Int) -> [Band] {
        guard let first = starts.lastIndex(where: { $0.row <= needed.lowerBound }) else { return [] }
        let top = starts[first].row
        var cuts = [first]
        for i in 1..<max(1, count) {
            let target = top + (needed.upperBound - top) * i / count
            let nearest = starts.indices.filter { $0 > cuts.last! && starts[$0].row < needed.upperBound }
                .min { abs(starts[$0].row - target) < abs(starts[$1].row - target) }
            if let nearest { cuts.append(nearest) }
        }
        // The last band ends at the first start at or below the rows needed (its marker before it).
        let after = starts.firstIndex { $0.row >= needed.upperBound }
        var bands: [Band] = []
        for (n, cut) in cuts.enumerated() {
            let endIndex = n + 1 < cuts.count ? cuts[n + 1] : after
            let endRow = endIndex.map { starts[$0].row } ?? mcuRows
            let endOffset = endIndex.map { starts[$0].offset - 2 } ?? dataEnd
            bands.append(Band(rows: starts[cut].row..<endRow, data: starts[cut].offset..<endOffset))
        }
        return bands
    }
}
