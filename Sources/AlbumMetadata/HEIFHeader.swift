import AlbumCore

/// The parts of a HEIF image (HEIC, HEIF, AVIF) that albumfs reads: the primary image's EXIF and
/// XMP items and its size.
///
/// A HEIF file is ISO base media boxes: `ftyp`, `meta` (what the items are, their properties, and
/// where their bytes lie: `iinf`, `iprp`, `iloc`) and `mdat` (the bytes). Only the `meta` box and
/// the bytes of the two metadata items are read, never the image data. (libheif 1.15, which
/// decodes the thumbnails, reads every top-level box whole when it opens a file, image data
/// included: all 2.1 MB of a 2.1 MB HEIC, for its few kilobytes of EXIF. A scan cannot afford
/// that; the container is simple enough to walk here, as JPEG's segments and PNG's chunks are,
/// and the EXIF itself is still libexif's to parse.)
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

    /// A `meta` box, or a metadata item, larger than this is not read (real ones are kilobytes).
    static let largestRead = 4 << 20
    /// Top-level boxes looked at before giving up on finding `meta` (it follows `ftyp`).
    static let topLevelBoxes = 16

    /// - Parameters:
    ///   - size: the file's length (a box may say "to the end of the file").
    ///   - read: reads `count` bytes at an offset (fewer at end of file).
    public init<E: Error>(size: Int64, read: (Int64, Int) throws(E) -> [UInt8]) throws(E) {
        var offset: Int64 = 0
        var meta: [UInt8]?
        for _ in 0..<Self.topLevelBoxes where offset < size {
            let head = try read(offset, 16)
            guard let box = BoxHeader(head, at: 0, fileEnd: size - offset) else { truncated = true; return }
            if box.type == "meta" {
                guard box.bodyLength <= Self.largestRead else { return }
                let body = try read(offset + Int64(box.headerLength), box.bodyLength)
                if body.count < box.bodyLength { truncated = true }
                meta = body
                break
            }
            offset += box.length
        }
        guard let meta else { return }
        let items = MetaBox(meta)
        if items.truncated { truncated = true }
        width = items.primarySize?.width
        height = items.primarySize?.height
        if let exifItem = items.primaryMetadata(type: "Exif") {
            let data = try items.bytes(of: exifItem, read: read)
            if data.count < exifItem.length { truncated = true }
            exif = Self.exifBlock(data)
        }
        if let xmpItem = items.primaryMetadata(type: "mime", contentType: "application/rdf+xml") {
            let data = try items.bytes(of: xmpItem, read: read)
            if data.count < xmpItem.length { truncated = true }
            xmp = String(decoding: data, as: UTF8.self)
        }
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

/// An ISO base media box's header: its type and sizes. (A full box's version and flags start its
/// body: `Reader` reads them.)
struct BoxHeader {
    let type: String
    let headerLength: Int
    /// The whole box, header included.
    let length: Int64

    var bodyLength: Int { Int(length) - headerLength }

    /// The box starting at `at` in `bytes`, which may reach `fileEnd` bytes past `at` at most
    /// (nil: not a whole header, or a length that cannot be).
    init?(_ bytes: [UInt8], at: Int, fileEnd: Int64) {
        guard let size32 = bytes.be32(at), at + 8 <= bytes.count else { return nil }
        type = String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)
        switch size32 {
        case 0:  // to the end
            headerLength = 8
            length = fileEnd
        case 1:  // a 64-bit size follows
            guard let high = bytes.be32(at + 8), let low = bytes.be32(at + 12), high < 0x8000_0000 else { return nil }
            headerLength = 16
            length = Int64(high) << 32 | Int64(low)
        default:
            headerLength = 8
            length = Int64(size32)
        }
        guard length >= Int64(headerLength), length <= fileEnd else { return nil }
    }
}

/// The item table of a HEIF `meta` box: which items there are, where their bytes lie, which
/// describe which, and the primary image's size.
struct MetaBox {
    struct Item {
        var type = ""
        var contentType = ""
        var constructionMethod = 0
        /// (offset, length) of each extent: in the file, or in `idat` (construction method 1).
        var extents: [(offset: Int64, length: Int64)] = []
        /// The extents' total, at most `HEIFHeader.largestRead` (each is clamped before the sum: a
        /// damaged `iloc` may give any 63-bit lengths).
        var length: Int {
            let limit = Int64(HEIFHeader.largestRead)
            return Int(min(extents.reduce(0) { $0 + min(max($1.length, 0), limit) }, limit))
        }
    }

    private(set) var items: [UInt32: Item] = [:]
    private(set) var primary: UInt32?
    /// Item → the items it describes (`cdsc` references: EXIF and XMP of an image).
    private(set) var describes: [UInt32: [UInt32]] = [:]
    private(set) var primarySize: (width: Int, height: Int)?
    private(set) var truncated = false
    private var idat: [UInt8] = []

    /// - Parameter body: the `meta` box's body (a full box: version and flags first).
    init(_ body: [UInt8]) {
        var properties: [(type: String, body: [UInt8])] = []
        var associations: [UInt32: [Int]] = [:]
        for (type, box) in boxes(in: body, from: 4) {
            let v = Reader(box)
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
                        associations = Self.readAssociations(Reader(inner))
                    }
                }
            default: break
            }
        }
        if let primary, let indices = associations[primary] {
            for i in indices where i >= 1 && i <= properties.count && properties[i - 1].type == "ispe" {
                let ispe = Reader(properties[i - 1].body)
                if let w = ispe.u32(4), let h = ispe.u32(8) { primarySize = (Int(w), Int(h)) }
            }
        }
    }

    /// The first item of `type` (and `contentType`) that describes the primary image, else the
    /// first of that type that describes nothing said.
    func primaryMetadata(type: String, contentType: String? = nil) -> Item? {
        let candidates = items.filter { $0.value.type == type && (contentType == nil || $0.value.contentType == contentType) }
            .sorted { $0.key < $1.key }
        let forPrimary = candidates.first { id, _ in primary.map { describes[id]?.contains($0) } == true }
        return (forPrimary ?? candidates.first { describes[$0.key] == nil })?.value
    }

    /// An item's bytes, its extents one after the other (at most `HEIFHeader.largestRead`).
    func bytes<E: Error>(of item: Item, read: (Int64, Int) throws(E) -> [UInt8]) throws(E) -> [UInt8] {
        var data: [UInt8] = []
        for extent in item.extents {
            let wanted = min(Int(extent.length), item.length - data.count)
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
            guard let box = BoxHeader(bytes, at: at, fileEnd: Int64(bytes.count - at)) else {
                truncated = true
                break
            }
            found.append((box.type, Array(bytes[(at + box.headerLength)..<(at + Int(box.length))])))
            at += Int(box.length)
        }
        return found
    }

    private mutating func readItemInfos(_ v: Reader) {
        for (type, box) in boxes(in: v.bytes, from: v.version == 0 ? 6 : 8) where type == "infe" {
            let e = Reader(box)
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

    private mutating func readLocations(_ v: Reader) {
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

    private mutating func readReferences(_ v: Reader) {
        let idLength = v.version == 0 ? 2 : 4
        var found: [UInt32: [UInt32]] = [:]
        for (type, box) in boxes(in: v.bytes, from: 4) where type == "cdsc" {
            let r = Reader(box, fullBox: false)
            let id: (Int) -> UInt32? = { idLength == 2 ? r.u16($0).map(UInt32.init) : r.u32($0) }
            guard let from = id(0), let count = r.u16(idLength) else { continue }
            for k in 0..<Int(count) {
                if let to = id(idLength + 2 + k * idLength) { found[from, default: []].append(to) }
            }
        }
        describes = found
    }

    /// `ipma`: item → the 1-based indices of its properties in `ipco`.
    private static func readAssociations(_ v: Reader) -> [UInt32: [Int]] {
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
private struct Reader {
    let bytes: [UInt8]
    let version: Int
    let flags: Int

    init(_ body: [UInt8], fullBox: Bool = true) {
        bytes = body
        version = fullBox && !bytes.isEmpty ? Int(bytes[0]) : 0
        flags = fullBox ? (bytes.be32(0) ?? 0) & 0xFF_FFFF : 0
    }

    func u8(_ at: Int) -> UInt8? { at >= 0 && at < bytes.count ? bytes[at] : nil }
    func u16(_ at: Int) -> UInt16? { bytes.be16(at).map(UInt16.init) }
    func u32(_ at: Int) -> UInt32? { bytes.be32(at).map(UInt32.init) }

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
