/// Builds EXIF blocks (a TIFF structure behind `Exif\0\0`) for generated sample photos.
///
/// Only for writing fixtures: albumfs reads EXIF with libexif, never with this code, so a bug
/// here cannot hide a bug in the reader.
public struct ExifWriter {
    public enum ByteOrder: Sendable { case intel, motorola }

    public enum Value {
        case ascii(String)
        case byte(UInt8)
        case bytes([UInt8])
        case short(UInt16)
        /// Several SHORTs: BitsPerSample of an RGB image, a CFA's repeat pattern.
        case shorts([UInt16])
        case long(UInt32)
        /// An SLONG: Apple's maker note types its flags so (exiftool's `int32s`).
        case slong(Int32)
        case rational(UInt32, UInt32)
        /// Several RATIONALs: GPS coordinates and time stamps are three each.
        case rationals([UInt32])
        /// Several SRATIONALs (numerator, denominator pairs): a DNG's colour matrices.
        case srationals([Int32])
        case undefined([UInt8])

        var type: UInt16 {
            switch self {
            case .byte, .bytes: return 1
            case .ascii: return 2
            case .short, .shorts: return 3
            case .long: return 4
            case .slong: return 9
            case .rational, .rationals: return 5
            case .srationals: return 10
            case .undefined: return 7
            }
        }
    }

    /// Where the writer puts things, beyond what TIFF requires: phones and editors write IFD
    /// entries out of tag order and leave gaps between the IFDs, and a reader must not care.
    public struct Layout: Sendable {
        /// Entries in descending tag order (TIFF asks for ascending).
        public var reversedTags = false
        /// Unused bytes after each IFD.
        public var gap = 0
        public init(reversedTags: Bool = false, gap: Int = 0) {
            self.reversedTags = reversedTags
            self.gap = gap
        }
    }

    public var order: ByteOrder
    public var layout = Layout()
    public var ifd0: [UInt16: Value] = [:]
    public var exif: [UInt16: Value] = [:]
    /// The Interoperability IFD (pointed at from the Exif IFD): InteropIndex `R98`, `R03`.
    public var interop: [UInt16: Value] = [:]
    /// The GPS IFD (pointed at from IFD0).
    public var gps: [UInt16: Value] = [:]
    /// IFD1's thumbnail, a JPEG placed after it (JPEGInterchangeFormat and its length).
    public var thumbnail: [UInt8]?

    public init(order: ByteOrder = .intel) { self.order = order }

    /// The APP1 payload: `Exif\0\0` + the TIFF structure.
    public func payload() -> [UInt8] { Array("Exif\0\0".utf8) + tiff() }

    /// TIFF header, IFD0, then the Exif, Interop and GPS IFDs and IFD1 with its thumbnail.
    public func tiff() -> [UInt8] {
        var ifd0 = self.ifd0, exifEntries = exif, gpsEntries = gps, ifd1: [UInt16: Value] = [:]
        // Pointers are placeholders until the offsets are known (same size either way).
        if !interop.isEmpty { exifEntries[0xA005] = .long(0) }
        if !exifEntries.isEmpty { ifd0[0x8769] = .long(0) }
        if !gpsEntries.isEmpty { ifd0[0x8825] = .long(0) }
        if let thumbnail { ifd1 = [0x0103: .short(6), 0x0201: .long(0), 0x0202: .long(UInt32(thumbnail.count))] }
        var next = 8
        func place(_ entries: [UInt16: Value]) -> Int {
            defer { if !entries.isEmpty { next += size(entries) + layout.gap } }
            return entries.isEmpty ? 0 : next
        }
        let ifd0At = place(ifd0), exifAt = place(exifEntries), interopAt = place(interop)
        let gpsAt = place(gpsEntries), ifd1At = place(ifd1), thumbnailAt = next
        if exifAt > 0 { ifd0[0x8769] = .long(UInt32(exifAt)) }
        if gpsAt > 0 { ifd0[0x8825] = .long(UInt32(gpsAt)) }
        if interopAt > 0 { exifEntries[0xA005] = .long(UInt32(interopAt)) }
        if ifd1At > 0 { ifd1[0x0201] = .long(UInt32(thumbnailAt)) }
        var out = [UInt8](repeating: 0, count: thumbnailAt + (thumbnail?.count ?? 0))
        let header: [UInt8] = order == .intel ? [0x49, 0x49, 42, 0] : [0x4D, 0x4D, 0, 42]
        out.replaceSubrange(0..<8, with: header + u32(8))
        for (entries, at, nextIFD) in [(ifd0, ifd0At, ifd1At), (exifEntries, exifAt, 0), (interop, interopAt, 0), (gpsEntries, gpsAt, 0),
                                       (ifd1, ifd1At, 0)] where at > 0 {
            let bytes = ifd(entries, at: at, next: nextIFD)
            out.replaceSubrange(at..<at + bytes.count, with: bytes)
        }
        if let thumbnail { out.replaceSubrange(thumbnailAt..<out.count, with: thumbnail) }
        return out
    }

    /// Bytes an IFD takes with its out-of-line data.
    private func size(_ entries: [UInt16: Value]) -> Int {
        entries.isEmpty ? 0 : 2 + 12 * entries.count + 4 + dataSize(entries)
    }

    /// One IFD and its out-of-line data, placed at `offset` from where its offsets count (the
    /// TIFF header, or a maker note's own start), followed by the offset of the next IFD.
    func ifd(_ entries: [UInt16: Value], at offset: Int, next: Int = 0) -> [UInt8] {
        var out = u16(UInt16(entries.count))
        var data: [UInt8] = []
        let dataStart = offset + 2 + 12 * entries.count + 4
        let tags = entries.keys.sorted()
        for tag in layout.reversedTags ? tags.reversed() : tags {
            let value = entries[tag]!
            let bytes = encode(value)
            out += u16(tag) + u16(value.type) + u32(UInt32(count(value)))
            if bytes.count <= 4 {
                out += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
            } else {
                out += u32(UInt32(dataStart + data.count))
                data += bytes
                if data.count % 2 == 1 { data.append(0) }
            }
        }
        return out + u32(UInt32(next)) + data
    }

    private func dataSize(_ entries: [UInt16: Value]) -> Int {
        entries.values.map(encode).filter { $0.count > 4 }.reduce(0) { $0 + $1.count + $1.count % 2 }
    }

    private func count(_ v: Value) -> Int {
        switch v {
        case .ascii(let s): return s.utf8.count + 1
        case .byte, .short, .long, .slong, .rational: return 1
        case .rationals(let parts): return parts.count / 2
        case .srationals(let parts): return parts.count / 2
        case .bytes(let b), .undefined(let b): return b.count
        case .shorts(let s): return s.count
        }
    }

    private func encode(_ v: Value) -> [UInt8] {
        switch v {
        case .ascii(let s): return Array(s.utf8) + [0]
        case .byte(let n): return [n]
        case .short(let n): return u16(n)
        case .long(let n): return u32(n)
        case .slong(let n): return u32(UInt32(bitPattern: n))
        case .rational(let a, let b): return u32(a) + u32(b)
        case .rationals(let parts): return parts.flatMap(u32)
        case .srationals(let parts): return parts.flatMap { u32(UInt32(bitPattern: $0)) }
        case .bytes(let b), .undefined(let b): return b
        case .shorts(let s): return s.flatMap(u16)
        }
    }

    func u16(_ v: UInt16) -> [UInt8] {
        order == .intel ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)]
    }

    func u32(_ v: UInt32) -> [UInt8] {
        let b = [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        return order == .intel ? b.reversed() : b
    }
}

/// A capture time as EXIF 2.31 writes it: `DateTimeOriginal`, with its sub-seconds
/// (`SubSecTimeOriginal`) and its offset from UTC (`OffsetTimeOriginal`) where the camera gives
/// them. A string literal is the date and time alone.
public struct ExifTime: Sendable, ExpressibleByStringLiteral {
    public var dateTime: String
    public var subSec: String?
    public var offset: String?

    public init(_ dateTime: String, subSec: String? = nil, offset: String? = nil) {
        (self.dateTime, self.subSec, self.offset) = (dateTime, subSec, offset)
    }

    public init(stringLiteral dateTime: String) { self.init(dateTime) }
}

/// The EXIF a camera or phone would write, in a few named fields.
public struct SampleExif {
    public var order: ExifWriter.ByteOrder = .intel
    public var make: String?
    public var model: String?
    public var software: String?
    public var orientation: UInt16?
    public var dateTimeOriginal: String?
    public var subSecTimeOriginal: String?
    public var offsetTimeOriginal: String?
    public var dateTimeDigitized: String?
    /// IFD0 DateTime, written beside a DateTimeOriginal only (nil: none): what editors rewrite,
    /// so a misleading one, which any other date beats.
    public var dateTime: String? = "2025:01:01 00:00:00"
    public var userComment: String?
    /// IFD0 Rating (0x4746), as Windows writes it.
    public var rating: UInt16?
    /// EXIF CustomRendered (0xA401): Apple's 6 (panorama), 7 and 8 (portraits).
    public var customRendered: UInt16?
    /// EXIF LensModel (0xA434), as iPhones name their lenses (`iPhone 15 Pro front camera 2.69mm f/1.9`).
    public var lensModel: String?
    /// ExposureTime, FNumber, ISO: what makes it a camera exposure.
    public var exposure = false
    /// GPSDateStamp and GPSTimeStamp (UTC), `YYYY:MM:DD` and hour, minute, second, with a
    /// position beside them as phones write it.
    public var gpsUTC: (date: String, hour: UInt32, minute: UInt32, second: UInt32)?
    /// The GPS position written (degrees north and east; nil: the Eiffel Tower's beside a
    /// `gpsUTC`, none without), as degrees, minutes and seconds with their reference letters.
    public var position: (latitude: Double, longitude: Double)?
    /// Whether `position` carries its reference letters (`GPSLatitudeRef`, `GPSLongitudeRef`).
    public var positionReferences = true
    /// IFD1's thumbnail (a JPEG).
    public var thumbnail: [UInt8]?
    public var makerNote: MakerNote?
    public var layout = ExifWriter.Layout()

    public init() {}

    /// A camera's EXIF: its make and model, the capture time (digitized at the same moment),
    /// exposure data, and the orientation it was held in.
    public static func camera(_ make: String, _ model: String, _ time: ExifTime, order: ExifWriter.ByteOrder = .intel,
                              orientation: UInt16 = 1) -> SampleExif {
        var e = SampleExif()
        e.order = order
        e.make = make
        e.model = model
        e.dateTimeOriginal = time.dateTime
        e.dateTimeDigitized = time.dateTime
        e.subSecTimeOriginal = time.subSec
        e.offsetTimeOriginal = time.offset
        e.orientation = orientation
        e.exposure = true
        return e
    }

    /// A GPS coordinate's magnitude as EXIF writes it: three RATIONALs, the seconds to a
    /// thousandth (about 3 cm).
    static func degreesMinutesSeconds(_ value: Double) -> ExifWriter.Value {
        let thousandths = UInt64((abs(value) * 3600 * 1_000).rounded())
        let degrees = thousandths / (3600 * 1_000), minutes = thousandths / (60 * 1_000) % 60
        return .rationals([UInt32(degrees), 1, UInt32(minutes), 1, UInt32(thousandths % (60 * 1_000)), 1_000])
    }

    public func payload() -> [UInt8] {
        var w = ExifWriter(order: order)
        if let make { w.ifd0[0x010F] = .ascii(make) }
        if let model { w.ifd0[0x0110] = .ascii(model) }
        if let software { w.ifd0[0x0131] = .ascii(software) }
        if let orientation { w.ifd0[0x0112] = .short(orientation) }
        if let rating { w.ifd0[0x4746] = .short(rating) }
        if dateTimeOriginal != nil, let dateTime { w.ifd0[0x0132] = .ascii(dateTime) }
        if let dateTimeOriginal { w.exif[0x9003] = .ascii(dateTimeOriginal) }
        if let dateTimeDigitized { w.exif[0x9004] = .ascii(dateTimeDigitized) }
        if let subSecTimeOriginal { w.exif[0x9291] = .ascii(subSecTimeOriginal) }
        if let offsetTimeOriginal { w.exif[0x9011] = .ascii(offsetTimeOriginal) }
        if let customRendered { w.exif[0xA401] = .short(customRendered) }
        if let lensModel { w.exif[0xA434] = .ascii(lensModel) }
        if let userComment { w.exif[0x9286] = .undefined(Array("ASCII\0\0\0".utf8) + Array(userComment.utf8)) }
        if exposure {
            w.exif[0x829A] = .rational(1, 125)
            w.exif[0x829D] = .rational(28, 10)
            w.exif[0x8827] = .short(200)
        }
        if let gpsUTC {
            w.gps = [0x0000: .bytes([2, 3, 0, 0]), 0x0001: .ascii("N"), 0x0002: .rationals([48, 1, 51, 1, 2_940, 100]),
                     0x0003: .ascii("E"), 0x0004: .rationals([2, 1, 17, 1, 4_020, 100]),
                     0x0007: .rationals([gpsUTC.hour, 1, gpsUTC.minute, 1, gpsUTC.second, 1]), 0x001D: .ascii(gpsUTC.date)]
        }
        if let position {
            w.gps[0x0000] = .bytes([2, 3, 0, 0])
            w.gps[0x0002] = Self.degreesMinutesSeconds(position.latitude)
            w.gps[0x0004] = Self.degreesMinutesSeconds(position.longitude)
            w.gps[0x0001] = positionReferences ? .ascii(position.latitude < 0 ? "S" : "N") : nil
            w.gps[0x0003] = positionReferences ? .ascii(position.longitude < 0 ? "W" : "E") : nil
        }
        if let makerNote { w.exif[0x927C] = .undefined(makerNote.bytes(order: order)) }
        w.thumbnail = thumbnail
        w.layout = layout
        return w.payload()
    }
}

/// Maker notes as phones and cameras write them, in the byte layouts exiftool documents
/// (Image::ExifTool::MakerNotes): readers must step over them, whole or damaged.
public enum MakerNote: Sendable {
    /// `Apple iOS\0`, version 1, `MM`, then an IFD whose offsets count from the note's start;
    /// its tag 0x0011 (exiftool's MediaGroupUUID) is the identifier a Live Photo's still shares
    /// with its video.
    case apple(mediaGroup: String)
    /// The same with tag 0x000B (exiftool's BurstUUID), which every photo of a burst shares, and
    /// no media group (a burst's photos are no Live Photos); and tag 0x0045 (FrontFacingCamera),
    /// an SLONG, 1 for the front camera.
    case appleKinds(burst: String?, frontFacing: Bool)
    /// Samsung's type 2: a bare IFD, every value held in its entry.
    case samsung
    /// Nikon's type 3: `Nikon\0`, version 2.10, then a TIFF header of its own that the IFD's
    /// offsets count from.
    case nikon

    func bytes(order: ExifWriter.ByteOrder) -> [UInt8] {
        switch self {
        case .apple(let id):
            let w = ExifWriter(order: .motorola)
            let entries: [UInt16: ExifWriter.Value] = [0x0001: .long(14), 0x0008: .rationals([1, 100, 98, 100, 3, 100]),
                                                       0x000A: .long(3), 0x0011: .ascii(id)]
            return Array("Apple iOS\0".utf8) + [0, 1] + Array("MM".utf8) + w.ifd(entries, at: 14)
        case .appleKinds(let burst, let frontFacing):
            let w = ExifWriter(order: .motorola)
            var entries: [UInt16: ExifWriter.Value] = [0x0001: .long(14), 0x000A: .long(3), 0x0045: .slong(frontFacing ? 1 : 0)]
            if let burst { entries[0x000B] = .ascii(burst) }
            return Array("Apple iOS\0".utf8) + [0, 1] + Array("MM".utf8) + w.ifd(entries, at: 14)
        case .samsung:
            let w = ExifWriter(order: order)
            return w.ifd([0x0001: .undefined(Array("0100".utf8)), 0x0002: .long(0x12000), 0x000C: .long(0)], at: 0)
        case .nikon:
            let w = ExifWriter(order: .motorola)
            let entries: [UInt16: ExifWriter.Value] = [0x0001: .undefined(Array("0210".utf8)), 0x0004: .ascii("FINE   "),
                                                       0x001D: .ascii("3012345")]
            return Array("Nikon\0".utf8) + [2, 0x10, 0, 0] + [0x4D, 0x4D, 0, 42, 0, 0, 0, 8] + w.ifd(entries, at: 8)
        }
    }
}
