import AlbumCore

/// The parts of a video (QuickTime `.MOV`, MP4, M4V, 3GP: ISO base media boxes) that albumfs
/// reads: the movie header's creation time (`mvhd`), QuickTime Keys metadata (`meta` with `keys`
/// and `ilst`: Apple's creation date with its zone, content identifier, make and model), XMP
/// (`uuid` at the top, `udta/XMP_` in QuickTime), and the first video track's size and rotation
/// (`tkhd`).
///
/// Box headers are walked with small reads and only metadata boxes are read whole (at most
/// `MetadataLimits.perFile`): the sample tables (`stbl`, megabytes in a long clip) and the media
/// data (`mdat`) are never read. The movie box may come after the media data (phones write it at
/// the end): each top-level box costs one read of its header.
public struct VideoHeader {
    public var width: Int?
    public var height: Int?
    /// Whether the file ended, or a box did, before what it said it held.
    public var truncated = false
    public var exif: [UInt8]? { nil }
    public var xmp: String?
    /// `mvhd`'s creation time, seconds since 1904-01-01 UTC (nil when 0: "not set").
    public var creationTime: Int64?
    /// QuickTime Keys metadata with UTF-8 values, by key (`com.apple.quicktime.creationdate`).
    public var keys: [String: String] = [:]
    /// The first video track's rotation, clockwise degrees (0, 90, 180, 270), from its matrix.
    public var rotation = 0
    /// Whether a movie box (`moov`) was found.
    public var hasMovie = false
    /// Whether it has a video track (an `.m4a` has sound only).
    public var hasVideoTrack = false
    /// Whether the first video track's first chunk (`stco`/`co64`) starts at or past the file's
    /// end: no frame of it can be decoded.
    public var samplesPastEnd = false

    private let fileSize: Int64

    /// Top-level boxes looked at at most (a phone's file has three or four; an edited one a few more).
    static let topLevelBoxes = 64
    /// Children of one box looked at at most (a movie with a track per language has a dozen).
    static let childBoxes = 64
    /// The XMP `uuid` box's user type (Adobe's XMP specification, part 3).
    static let xmpUUID: [UInt8] = [0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC]

    /// The file's orientation as EXIF states one (1, 6, 3, 8 for 0, 90, 180, 270 degrees).
    public var orientation: Int {
        switch rotation {
        case 90: 6
        case 180: 3
        case 270: 8
        default: 1
        }
    }

    /// - Parameters:
    ///   - size: the file's length (a box may say "to the end of the file").
    ///   - read: reads `count` bytes at an offset (fewer at end of file).
    public init<E: Error>(size: Int64, read: (Int64, Int) throws(E) -> [UInt8]) throws(E) {
        fileSize = size
        var walk = BoxWalk(fileSize: size)
        for box in try walk.children(from: 0, to: size, limit: Self.topLevelBoxes, read) {
            switch box.type {
            case "moov" where !hasMovie:
                hasMovie = true
                try readMovie(&walk, box, read)
            case "uuid":
                guard let body = try walk.body(box, read), body.starts(with: Self.xmpUUID) else { continue }
                xmp = xmp ?? String(decoding: body.dropFirst(16), as: UTF8.self)
            default: continue
            }
        }
        truncated = walk.truncated
    }

    private mutating func readMovie<E: Error>(_ walk: inout BoxWalk, _ movie: PlacedBox,
                                              _ read: (Int64, Int) throws(E) -> [UInt8]) throws(E) {
        for box in try walk.children(inside: movie, limit: Self.childBoxes, read) {
            switch box.type {
            case "mvhd":
                guard let body = try walk.body(box, read) else { continue }
                let v = BoxFields(body)
                let created = v.version == 1 ? v.uint(4, size: 8) : v.u32(4).map(Int64.init)
                if let created, created > 0 { creationTime = created }
            case "trak" where !hasVideoTrack:
                try readTrack(&walk, box, read)
            case "meta":
                if let body = try walk.body(box, read) { readKeys(MetadataBoxes.keyed(body)) }
            case "udta":
                guard let body = try walk.body(box, read) else { continue }
                for child in MetadataBoxes.children(body) {
                    if child.type == "meta" { readKeys(MetadataBoxes.keyed(child.body)) }
                    if child.type == "XMP_" { xmp = xmp ?? String(decoding: child.body, as: UTF8.self) }
                }
            default: continue
            }
        }
    }

    private mutating func readKeys(_ found: [String: String]) {
        keys.merge(found) { first, _ in first }
    }

    /// A track: its header (size, matrix) and its handler (`vide` for a video track).
    private mutating func readTrack<E: Error>(_ walk: inout BoxWalk, _ track: PlacedBox,
                                              _ read: (Int64, Int) throws(E) -> [UInt8]) throws(E) {
        var header: BoxFields?
        var handler: String?
        var media: PlacedBox?
        for box in try walk.children(inside: track, limit: Self.childBoxes, read) {
            if box.type == "tkhd", let body = try walk.body(box, read) { header = BoxFields(body) }
            guard box.type == "mdia" else { continue }
            for child in try walk.children(inside: box, limit: Self.childBoxes, read) {
                if child.type == "hdlr" { handler = try walk.body(child, read).flatMap { BoxFields($0).fourCC(8) } }
                if child.type == "minf" { media = child }
            }
        }
        guard handler == "vide", let header else { return }
        hasVideoTrack = true
        if let media, let first = try firstChunkOffset(&walk, media, read) { samplesPastEnd = first >= fileSize }
        // Version 1 has 64-bit times: the matrix and the size sit 12 bytes further.
        let base = header.version == 1 ? 52 : 40
        rotation = Self.rotation(matrix: (0..<4).map { header.u32(base + [0, 4, 12, 16][$0]).map { Int32(bitPattern: $0) } ?? 0 })
        width = header.u32(base + 36).map { Int($0 >> 16) }
        height = header.u32(base + 40).map { Int($0 >> 16) }
    }

    /// Where a track's first chunk of samples starts (`minf/stbl/stco` or `co64`: its first
    /// entry, a read of 16 bytes at most; the table itself, megabytes in a long clip, is never
    /// read); nil when it has none.
    private func firstChunkOffset<E: Error>(_ walk: inout BoxWalk, _ media: PlacedBox,
                                            _ read: (Int64, Int) throws(E) -> [UInt8]) throws(E) -> Int64? {
        for table in try walk.children(inside: media, limit: Self.childBoxes, read) where table.type == "stbl" {
            for box in try walk.children(inside: table, limit: Self.childBoxes, read) where box.type == "stco" || box.type == "co64" {
                let wide = box.type == "co64"
                let fields = BoxFields(try read(box.bodyStart, wide ? 16 : 12))
                guard let count = fields.u32(4), count > 0 else { return nil }
                return wide ? fields.uint(8, size: 8) : fields.u32(8).map(Int64.init)
            }
        }
        return nil
    }

    /// The clockwise rotation a track's matrix (its a, b, c, d, 16.16 fixed point) shows its
    /// frames with; 0 for any other transform (a mirror, a scale).
    static func rotation(matrix m: [Int32]) -> Int {
        let one: Int32 = 0x1_0000
        switch (m[0], m[1], m[2], m[3]) {
        case (0, one, -one, 0): return 90
        case (-one, 0, 0, -one): return 180
        case (0, -one, one, 0): return 270
        default: return 0
        }
    }
}

/// Walks box headers in a file with one small read each (`read`: `count` bytes at an offset).
struct BoxWalk {
    let fileSize: Int64
    /// Whether a box was cut short by the file's end or its parent's.
    var truncated = false

    /// The boxes between `start` and `end`, at most `limit` of them.
    mutating func children<E: Error>(from start: Int64, to end: Int64, limit: Int,
                                     _ read: (Int64, Int) throws(E) -> [UInt8]) throws(E) -> [PlacedBox] {
        var boxes: [PlacedBox] = []
        var offset = start
        while offset + 8 <= end, boxes.count < limit {
            let head = try read(offset, 16)
            guard let box = ISOBoxHeader(head, at: 0, fileEnd: min(end, fileSize) - offset) else {
                truncated = true
                break
            }
            boxes.append(PlacedBox(offset: offset, header: box))
            offset += box.length
        }
        return boxes
    }

    /// The boxes inside `box`, at most `limit` of them.
    mutating func children<E: Error>(inside box: PlacedBox, limit: Int,
                                     _ read: (Int64, Int) throws(E) -> [UInt8]) throws(E) -> [PlacedBox] {
        try children(from: box.bodyStart, to: box.end, limit: limit, read)
    }

    /// A box's body when it is at most `MetadataLimits.perFile` bytes (nil: larger).
    mutating func body<E: Error>(_ box: PlacedBox, _ read: (Int64, Int) throws(E) -> [UInt8]) throws(E) -> [UInt8]? {
        guard box.header.bodyLength <= MetadataLimits.perFile else { return nil }
        let body = try read(box.bodyStart, box.header.bodyLength)
        if body.count < box.header.bodyLength { truncated = true }
        return body
    }
}

/// Metadata boxes read from memory: a box's children, and QuickTime Keys (`keys` + `ilst`).
enum MetadataBoxes {
    struct Child {
        let type: String
        let body: [UInt8]
    }

    /// The boxes in `bytes`, in order, as far as they are whole.
    static func children(_ bytes: [UInt8], from start: Int = 0) -> [Child] {
        var found: [Child] = []
        var at = start
        while at + 8 <= bytes.count, found.count < VideoHeader.childBoxes,
              let box = ISOBoxHeader(bytes, at: at, fileEnd: Int64(bytes.count - at)) {
            let bodyStart = at + box.headerLength
            found.append(Child(type: box.type, body: Array(bytes[bodyStart..<(at + Int(box.length))])))
            at += Int(box.length)
        }
        return found
    }

    /// A `meta` box's Keys metadata: UTF-8 values by key. QuickTime's `meta` is a plain box,
    /// ISO's a full one (four bytes of version and flags first): told by where `hdlr` starts.
    static func keyed(_ meta: [UInt8]) -> [String: String] {
        let start = meta.count >= 8 && meta[4..<8].elementsEqual("hdlr".utf8) ? 0 : 4
        let boxes = children(meta, from: start)
        guard let keysBox = boxes.first(where: { $0.type == "keys" }), let list = boxes.first(where: { $0.type == "ilst" }) else { return [:] }
        let names = keyNames(keysBox.body)
        var values: [String: String] = [:]
        for item in children(list.body) {
            // An item's type is its key's 1-based index, as a 32-bit number.
            guard let index = BoxFields.be32(item.type.utf8.map { $0 }, 0), index >= 1, index <= names.count,
                  let data = children(item.body).first(where: { $0.type == "data" }), data.body.count >= 8,
                  let type = BoxFields.be32(data.body, 0), let value = value(type, Array(data.body[8...])) else { continue }
            values[names[index - 1]] = values[names[index - 1]] ?? value
        }
        return values
    }

    /// A Keys value as text: UTF-8 as written, a number (QuickTime's well-known types: big-endian
    /// integers of 1 to 8 bytes, 32- and 64-bit floats) in decimal; nil for any other type.
    static func value(_ type: Int, _ bytes: [UInt8]) -> String? {
        let whole = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        switch type {
        case 1: return String(decoding: bytes, as: UTF8.self)
        case 21, 65, 66, 67, 74:  // signed integers
            guard (1...8).contains(bytes.count) else { return nil }
            let shift = UInt64(64 - 8 * bytes.count)
            return String(Int64(bitPattern: whole << shift) >> Int64(shift))
        case 22, 75, 76, 77, 78:  // unsigned integers
            return (1...8).contains(bytes.count) ? String(whole) : nil
        case 23: return bytes.count == 4 ? String(Float(bitPattern: UInt32(truncatingIfNeeded: whole))) : nil
        case 24: return bytes.count == 8 ? String(Double(bitPattern: whole)) : nil
        default: return nil
        }
    }

    /// A `keys` box's names (a full box: version and flags, a count, then size, namespace, name).
    static func keyNames(_ body: [UInt8]) -> [String] {
        guard let count = BoxFields.be32(body, 4) else { return [] }
        var names: [String] = []
        var at = 8
        while names.count < min(count, VideoHeader.childBoxes), let size = BoxFields.be32(body, at), size >= 8, at + size <= body.count {
            names.append(String(decoding: body[(at + 8)..<(at + size)], as: UTF8.self))
            at += size
        }
        return names
    }
}
