import AlbumCore

// The boxes of a HEIF image (HEIC, HEIF, AVIF): ISO base media boxes, `ftyp`, `meta` (what the
// items are, their properties, and where their bytes lie: `iinf`, `iprp`, `iloc`) and `mdat` (the
// bytes). Walked here, in pure Swift, for two readers that must not read a file whole: the scan
// wants the EXIF and XMP items (`HEIFHeader`), a thumbnail one image's bytes (`HEIFImage`).
// (libheif reads every top-level box whole when it opens a file, image data included: the
// whole file, for its few kilobytes of EXIF.)

/// A HEIF file's top-level boxes, as far as `meta` (or all of them), and its `meta` box's item
/// table.
public struct HEIFContainer: Sendable {
    /// The top-level boxes walked, where each starts.
    public private(set) var boxes: [PlacedBox] = []
    /// The `meta` box's items, when there is one that could be read.
    public private(set) var items: HEIFItemTable?
    /// Where the `meta` box ends in the file.
    public private(set) var metaEnd: Int64?
    /// Whether the file ended, or a box did, before what it said it held.
    public private(set) var truncated = false

    /// A `meta` box larger than this is not read (real ones are kilobytes).
    public static let largestMeta = 4 << 20
    /// Top-level boxes looked at at most (a HEIF file has a handful).
    public static let topLevelBoxes = 16

    /// - Parameters:
    ///   - size: the file's length (a box may say "to the end of the file").
    ///   - all: whether to walk past `meta` to the last top-level box (one read per box header),
    ///     or stop at it (a scan, which wants nothing more).
    ///   - read: reads `count` bytes at an offset (fewer at end of file).
    public init<E: Error>(size: Int64, all: Bool = false, read: (Int64, Int) throws(E) -> [UInt8]) throws(E) {
        var offset: Int64 = 0
        for _ in 0..<Self.topLevelBoxes where offset < size {
            let head = try read(offset, 16)
            guard let box = ISOBoxHeader(head, at: 0, fileEnd: size - offset) else {
                truncated = true
                return
            }
            boxes.append(PlacedBox(offset: offset, header: box))
            if box.type == "meta" && items == nil {
                guard box.bodyLength <= Self.largestMeta else { return }
                let body = try read(offset + Int64(box.headerLength), box.bodyLength)
                if body.count < box.bodyLength { truncated = true }
                let table = HEIFItemTable(body)
                if table.truncated { truncated = true }
                items = table
                metaEnd = offset + box.length
                if !all { return }
            }
            offset += box.length
        }
    }
}

/// An ISO base media box's header: its type and sizes. (A full box's version and flags start its
/// body: `BoxFields` reads them.)
public struct ISOBoxHeader: Sendable {
    public let type: String
    public let headerLength: Int
    /// The whole box, header included.
    public let length: Int64

    public var bodyLength: Int { Int(length) - headerLength }

    /// The box starting at `at` in `bytes`, which may reach `fileEnd` bytes past `at` at most
    /// (nil: not a whole header, or a length that cannot be).
    public init?(_ bytes: [UInt8], at: Int, fileEnd: Int64) {
        guard let size32 = BoxFields.be32(bytes, at), at + 8 <= bytes.count else { return nil }
        type = String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)
        switch size32 {
        case 0:  // to the end
            headerLength = 8
            length = fileEnd
        case 1:  // a 64-bit size follows
            guard let high = BoxFields.be32(bytes, at + 8), let low = BoxFields.be32(bytes, at + 12), high < 0x8000_0000 else { return nil }
            headerLength = 16
            length = Int64(high) << 32 | Int64(low)
        default:
            headerLength = 8
            length = Int64(size32)
        }
        guard length >= Int64(headerLength), length <= fileEnd else { return nil }
    }
}

/// A box and where it starts in the file.
public struct PlacedBox: Sendable {
    public let offset: Int64
    public let header: ISOBoxHeader

    public var type: String { header.type }
    /// Where its body starts in the file.
    public var bodyStart: Int64 { offset + Int64(header.headerLength) }
    /// Where it ends in the file.
    public var end: Int64 { offset + header.length }
}

/// The item table of a HEIF `meta` box: which items there are, where their bytes lie, which
/// describe which, and the primary image's size. Shared by the scan (`HEIFHeader`: the EXIF and
/// XMP items) and the thumbnailer (the bytes of the one image it decodes).
public struct HEIFItemTable: Sendable {
    public struct Item: Sendable {
        public var type = ""
        public var contentType = ""
        public var constructionMethod = 0
        /// (offset, length) of each extent: in the file, or in `idat` (construction method 1).
        public var extents: [(offset: Int64, length: Int64)] = []
        /// The extents' total, at most `HEIFItemTable.largestItem` (each is clamped before the
        /// sum: a damaged `iloc` may give any 63-bit lengths).
        public var length: Int {
            let limit = Int64(HEIFItemTable.largestItem)
            return Int(min(extents.reduce(0) { $0 + min(max($1.length, 0), limit) }, limit))
        }
    }

    /// An item's bytes are read up to this many (a metadata item is kilobytes; a 200 MP image's
    /// coded data tens of megabytes).
    public static let largestItem = 64 << 20

    public private(set) var items: [UInt32: Item] = [:]
    public private(set) var primary: UInt32?
    /// Item → the items it describes (`cdsc` references: EXIF and XMP of an image).
    public private(set) var describes: [UInt32: [UInt32]] = [:]
    /// Item → the items it is made of (`dimg` references: a grid's tiles).
    public private(set) var madeOf: [UInt32: [UInt32]] = [:]
    public private(set) var primarySize: (width: Int, height: Int)?
    public private(set) var truncated = false
    private var idat: [UInt8] = []

    /// - Parameter body: the `meta` box's body (a full box: version and flags first).
    public init(_ body: [UInt8]) {
        var properties: [(type: String, body: [UInt8])] = []
        var associations: [UInt32: [Int]] = [:]
        for (type, box) in boxes(in: body, from: 4) {
            let v = BoxFields(box)
            switch type {
            case "pitm": primary = v.version == 0 ? v.u16(4).map(UInt32.init) : v.u32(4)
            case "iinf": readItemInfos(v)
            case "iloc": readLocations(v)
            case "iref": readReferences(v)
            case "idat": idat = box
            case "iprp":
                for (type, inner) in boxes(in: box, from: 0) {
                    if type == "ipco" {
                        properties = boxes(in: inner, from: 0)
                    } else if type == "ipma" {
                        associations = Self.readAssociations(BoxFields(inner))
                    }
                }
            default: break
            }
        }
        if let primary, let indices = associations[primary] {
            for i in indices where i >= 1 && i <= properties.count && properties[i - 1].type == "ispe" {
                let ispe = BoxFields(properties[i - 1].body)
                if let w = ispe.u32(4), let h = ispe.u32(8) { primarySize = (Int(w), Int(h)) }
            }
        }
    }

    /// The first item of `type` (and `contentType`) that describes the primary image, else the
    /// first of that type that describes nothing said.
    public func primaryMetadata(type: String, contentType: String? = nil) -> Item? {
        let candidates = items.filter { $0.value.type == type && (contentType == nil || $0.value.contentType == contentType) }
            .sorted { $0.key < $1.key }
        let forPrimary = candidates.first { id, _ in primary.map { describes[id]?.contains($0) } == true }
        return (forPrimary ?? candidates.first { describes[$0.key] == nil })?.value
    }

    /// Whether the primary image cannot be decoded whatever its data holds: there is none, or
    /// the coded data it needs (its own, or its tiles') lies past the end of a file of `size`
    /// bytes. (What `iloc` says, no read: an item in `idat` is inside the `meta` box.)
    public func primaryDataMissing(fileSize size: Int64) -> Bool {
        guard let primary, let item = items[primary] else { return true }
        let needed = madeOf[primary].map { $0.compactMap { items[$0] } } ?? [item]
        return needed.contains { item in
            item.constructionMethod == 0 && item.extents.contains { $0.offset < 0 || $0.length < 0 || $0.offset > size - $0.length }
        }
    }

    /// An item's bytes, its extents one after the other (at most `limit`).
    public func bytes<E: Error>(of item: Item, limit: Int = largestItem, read: (Int64, Int) throws(E) -> [UInt8]) throws(E) -> [UInt8] {
        var data: [UInt8] = []
        let total = min(item.length, limit)
        for extent in item.extents {
            let wanted = min(Int(extent.length), total - data.count)
            guard wanted > 0 else { break }
            switch item.constructionMethod {
            case 0:
                data += try read(extent.offset, wanted)
            case 1:
                guard extent.offset >= 0, extent.offset < Int64(idat.count) else { return data }
                let start = Int(extent.offset)
                data += idat[start..<min(start + wanted, idat.count)]
            default:
                return data
            }
        }
        return data
    }

    /// The boxes in `bytes[from...]`, type and body; a box running past the end ends the list
    /// (and marks the table truncated).
    private mutating func boxes(in bytes: [UInt8], from: Int) -> [(type: String, body: [UInt8])] {
        var found: [(type: String, body: [UInt8])] = []
        var at = from
        while at + 8 <= bytes.count {
            guard let box = ISOBoxHeader(bytes, at: at, fileEnd: Int64(bytes.count - at)) else {
                truncated = true
                break
            }
            found.append((box.type, Array(bytes[(at + box.headerLength)..<(at + Int(box.length))])))
            at += Int(box.length)
        }
        return found
    }

    private mutating func readItemInfos(_ v: BoxFields) {
        for (type, box) in boxes(in: v.bytes, from: v.version == 0 ? 6 : 8) where type == "infe" {
            let e = BoxFields(box)
            // Versions 0 and 1 have no item type (they described files, not images).
            guard e.version >= 2 else { continue }
            let idLength = e.version == 2 ? 2 : 4
            guard let id = idLength == 2 ? e.u16(4).map(UInt32.init) : e.u32(4) else { continue }
            let typeAt = 4 + idLength + 2
            guard let type = e.fourCC(typeAt) else { continue }
            var item = items[id] ?? Item()
            item.type = type
            if type == "mime", let (_, nameEnd) = e.string(typeAt + 4), let (contentType, _) = e.string(nameEnd) {
                item.contentType = contentType
            }
            items[id] = item
        }
    }

    private mutating func readLocations(_ v: BoxFields) {
        guard let sizes = v.u8(4), let more = v.u8(5) else { return }
        let offsetSize = Int(sizes >> 4), lengthSize = Int(sizes & 15), baseSize = Int(more >> 4)
        let indexSize = v.version == 1 || v.version == 2 ? Int(more & 15) : 0
        var at = 6
        guard let count = v.version < 2 ? v.u16(at).map(Int.init) : v.u32(at).map(Int.init) else { return }
        at += v.version < 2 ? 2 : 4
        for _ in 0..<count {
            guard let id = v.version < 2 ? v.u16(at).map(UInt32.init) : v.u32(at) else { truncated = true; return }
            at += v.version < 2 ? 2 : 4
            var item = items[id] ?? Item()
            if v.version == 1 || v.version == 2 {
                guard let method = v.u16(at) else { truncated = true; return }
                item.constructionMethod = Int(method & 15)
                at += 2
            }
            at += 2  // data_reference_index: 0, this file
            guard let base = v.uint(at, size: baseSize), let extents = v.u16(at + baseSize) else { truncated = true; return }
            at += baseSize + 2
            item.extents = []
            for _ in 0..<extents {
                at += indexSize
                guard let offset = v.uint(at, size: offsetSize), let length = v.uint(at + offsetSize, size: lengthSize) else {
                    truncated = true
                    return
                }
                at += offsetSize + lengthSize
                item.extents.append((base &+ offset, length))
            }
            items[id] = item
        }
    }

    private mutating func readReferences(_ v: BoxFields) {
        let idLength = v.version == 0 ? 2 : 4
        var found: [UInt32: [UInt32]] = [:]
        var tiles: [UInt32: [UInt32]] = [:]
        for (type, box) in boxes(in: v.bytes, from: 4) where type == "cdsc" || type == "dimg" {
            let r = BoxFields(box, fullBox: false)
            let id: (Int) -> UInt32? = { idLength == 2 ? r.u16($0).map(UInt32.init) : r.u32($0) }
            guard let from = id(0), let count = r.u16(idLength) else { continue }
            for k in 0..<Int(count) {
                guard let to = id(idLength + 2 + k * idLength) else { continue }
                if type == "cdsc" { found[from, default: []].append(to) } else { tiles[from, default: []].append(to) }
            }
        }
        describes = found
        madeOf = tiles
    }

    /// `ipma`: item → the 1-based indices of its properties in `ipco`.
    private static func readAssociations(_ v: BoxFields) -> [UInt32: [Int]] {
        var result: [UInt32: [Int]] = [:]
        let wideIndex = v.flags & 1 == 1
        guard let count = v.u32(4) else { return result }
        var at = 8
        for _ in 0..<min(Int(count), 1 << 16) {
            guard let id = v.version < 1 ? v.u16(at).map(UInt32.init) : v.u32(at) else { break }
            at += v.version < 1 ? 2 : 4
            guard let n = v.u8(at) else { break }
            at += 1
            for _ in 0..<n {
                if wideIndex {
                    guard let x = v.u16(at) else { return result }
                    result[id, default: []].append(Int(x & 0x7FFF))
                    at += 2
                } else {
                    guard let x = v.u8(at) else { return result }
                    result[id, default: []].append(Int(x & 0x7F))
                    at += 1
                }
            }
        }
        return result
    }
}

/// Bounds-checked big-endian reads in a box's body; a full box's version and flags first.
struct BoxFields {
    let bytes: [UInt8]
    let version: Int
    let flags: Int

    init(_ body: [UInt8], fullBox: Bool = true) {
        bytes = body
        version = fullBox && !bytes.isEmpty ? Int(bytes[0]) : 0
        flags = fullBox ? (Self.be32(bytes, 0) ?? 0) & 0xFF_FFFF : 0
    }

    func u8(_ at: Int) -> UInt8? { at >= 0 && at < bytes.count ? bytes[at] : nil }
    func u16(_ at: Int) -> UInt16? {
        guard at >= 0, at + 2 <= bytes.count else { return nil }
        return UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1])
    }
    func u32(_ at: Int) -> UInt32? { Self.be32(bytes, at).map(UInt32.init) }

    static func be32(_ bytes: [UInt8], _ at: Int) -> Int? {
        guard at >= 0, at + 4 <= bytes.count else { return nil }
        return Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
    }

    /// An unsigned integer of 0, 4 or 8 bytes (`iloc`'s field sizes; 0 reads as 0).
    func uint(_ at: Int, size: Int) -> Int64? {
        switch size {
        case 0: return 0
        case 4: return u32(at).map(Int64.init)
        case 8:
            guard let high = u32(at), let low = u32(at + 4), high < 0x8000_0000 else { return nil }
            return Int64(high) << 32 | Int64(low)
        default: return nil
        }
    }

    func fourCC(_ at: Int) -> String? {
        guard at >= 0, at + 4 <= bytes.count else { return nil }
        return String(decoding: bytes[at..<(at + 4)], as: UTF8.self)
    }

    /// A NUL-terminated string at `at`, and where the next field starts.
    func string(_ at: Int) -> (String, Int)? {
        guard at >= 0, at <= bytes.count else { return nil }
        let end = bytes[at...].firstIndex(of: 0) ?? bytes.count
        return (String(decoding: bytes[at..<end], as: UTF8.self), min(end + 1, bytes.count))
    }
}
