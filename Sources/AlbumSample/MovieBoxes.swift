/// Box reading and writing for the sample's own ISO media files (sizes of 32 bits), and the
/// boxes that stand in a fixture beside its images.
public enum MovieBoxes {
    struct Box {
        let type: String
        let offset: Int
        var bytes: [UInt8]
        var bodyStart: Int { offset + 8 }
        var end: Int { offset + bytes.count }
    }

    static func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func be32(_ bytes: [UInt8], _ at: Int) -> Int {
        Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
    }
    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] { be32(8 + body.count) + Array(type.utf8) + body }

    /// The boxes in `range` of `file`, in order, as far as they are whole.
    static func children(_ file: [UInt8], _ range: Range<Int>) -> [Box] {
        var boxes: [Box] = []
        var at = range.lowerBound
        while at + 8 <= range.upperBound {
            let size = be32(file, at)
            guard size >= 8, at + size <= range.upperBound else { break }
            boxes.append(Box(type: String(decoding: file[(at + 4)..<(at + 8)], as: UTF8.self), offset: at, bytes: Array(file[at..<(at + size)])))
            at += size
        }
        return boxes
    }

    static func last(of file: [UInt8]) -> Box? { children(file, 0..<file.count).last }

    /// An ISO base media stream of `length` bytes (at least 40): an `ftyp` box (`isom`) and an
    /// `mdat` box of filler. It stands where a phone's video is, for readers that must step over
    /// it and copies that must keep it; it does not play.
    public static func isoMediaStub(length: Int) -> [UInt8] {
        let ftyp = be32(24) + Array("ftypisom".utf8) + be32(0x200) + Array("isommp42".utf8)
        let body = max(8, length - ftyp.count - 8)
        return ftyp + be32(body + 8) + Array("mdat".utf8) + (0..<body).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
    }

    /// A `moov` box holding only a movie header (version 0) created at `created`, seconds since
    /// 1904 (UTC): what some phones put beside a HEIF's images (exiftool's QuickTime CreateDate).
    public static func movieBox(created: UInt32) -> [UInt8] {
        func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        let identity: [UInt32] = [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x4000_0000]
        let body = [0, 0, 0, 0] + be32(created) + be32(created) + be32(600) + be32(0) + be32(0x10000) + [1, 0]
            + [UInt8](repeating: 0, count: 10) + identity.flatMap(be32) + [UInt8](repeating: 0, count: 24) + be32(2)
        let mvhd = be32(UInt32(8 + body.count)) + Array("mvhd".utf8) + body
        return be32(UInt32(8 + mvhd.count)) + Array("moov".utf8) + mvhd
    }
}
