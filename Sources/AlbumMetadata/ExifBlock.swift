import AlbumCore
import CExif
import CExifArena

/// A parsed EXIF block: a Swift owner of libexif's `ExifData`, freed in `deinit`.
///
/// libexif is the only EXIF parser here; this type is the one place that touches it.
final class ExifBlock {
    private let data: UnsafeMutablePointer<ExifData>
    private let order: ExifByteOrder

    /// Parses `bytes` (as `init`), runs `body` on the block, and frees it before returning, its
    /// memory taken from an arena of this thread (`CExifArena`: libexif's ~40 small allocations
    /// per block cost ~4 million malloc/free pairs in a scan of 100,000 photos). The block must
    /// not outlive `body`.
    ///
    /// A block whose memory is all the arena's is then dropped with it, not freed: libexif's walk
    /// to free every entry, content and value was a fifth of its time on a photo's small block.
    static func reading<T>(_ bytes: [UInt8], _ body: (ExifBlock?) -> T) -> T {
        guard let arena = albumfs_exif_arena_begin() else {
            let block = ExifBlock(bytes)
            defer { block?.close() }
            return body(block)
        }
        defer { albumfs_exif_arena_end() }
        let spills = albumfs_exif_arena_thread_spills()
        let block = ExifBlock(bytes, memory: arena)
        defer {
            if albumfs_exif_arena_thread_spills() == spills { block?.drop() } else { block?.close() }
        }
        return body(block)
    }

    /// Parses an APP1 payload that starts with `Exif\0\0`. Nil when libexif finds no IFD at all.
    /// - Parameter memory: libexif's allocator (nil: its own, calloc and free).
    init?(_ bytes: [UInt8], memory: OpaquePointer? = nil) {
        guard !bytes.isEmpty, let data = memory.map(exif_data_new_mem) ?? exif_data_new() else { return nil }
        // Keep tags libexif does not know (OffsetTime* on older builds) and never let it "fix"
        // values: albumfs reports what the file says.
        exif_data_unset_option(data, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS)
        exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        // libexif interprets every maker note it knows (Canon, Olympus, Fuji, Pentax, Apple), with
        // no option to skip it: work albumfs never uses, on the part of EXIF that cameras and
        // editors damage most. Hidden from it (its entry's count read as 0, so libexif drops it).
        var bytes = bytes
        if let count = Self.makerNoteCount(in: bytes) { bytes.replaceSubrange(count..<(count + 4), with: [0, 0, 0, 0]) }
        bytes.withUnsafeBufferPointer { exif_data_load_data(data, $0.baseAddress, UInt32($0.count)) }
        self.data = data
        self.order = exif_data_get_byte_order(data)
        if (content(EXIF_IFD_0)?.pointee.count ?? 0) == 0 && (content(EXIF_IFD_EXIF)?.pointee.count ?? 0) == 0
            && !Self.hasEmptyIFD0(bytes) { return nil }
    }

    /// Whether the block's TIFF header is sound and points at an IFD0 of no entries: an empty
    /// block, not a corrupt one (exiftool reads it without a warning of damage).
    static func hasEmptyIFD0(_ bytes: [UInt8]) -> Bool {
        guard let tiff = TIFFFields(bytes, at: 6), tiff.u16(tiff.start + 2) == 42, let ifd0 = tiff.u32(tiff.start + 4), ifd0 >= 8 else { return false }
        return tiff.u16(tiff.start + ifd0) == 0
    }

    /// Whether `data` was freed already (`close`).
    private var closed = false

    /// Frees libexif's data; the block is not to be used after.
    func close() {
        guard !closed else { return }
        closed = true
        exif_data_unref(data)
    }

    /// Forgets libexif's data without freeing it: for a block whose memory is all an arena's,
    /// which empties it as a whole (`reading`). The block is not to be used after.
    private func drop() {
        closed = true
    }

    deinit { close() }

    /// Where the count field of the MakerNote entry (0x927C, in the EXIF IFD) lies in an APP1
    /// payload, or nil. Bounds-checked at every step: damaged EXIF gives nil, and libexif says why.
    static func makerNoteCount(in bytes: [UInt8]) -> Int? {
        guard let (_, entry) = makerNoteEntry(in: bytes), entry + 8 <= bytes.count else { return nil }
        return entry + 4
    }

    /// The MakerNote entry of an APP1 payload (`Exif\0\0` and TIFF data): the TIFF data's
    /// fields and where the entry lies.
    static func makerNoteEntry(in bytes: [UInt8]) -> (TIFFFields, Int)? {
        guard let tiff = TIFFFields(bytes, at: 6), let ifd0 = tiff.u32(tiff.start + 4),
              let pointer = tiff.entry(0x8769, inIFDAt: ifd0), let exifIFD = tiff.u32(pointer + 8),
              let makerNote = tiff.entry(0x927C, inIFDAt: exifIFD) else { return nil }
        return (tiff, makerNote)
    }

    /// What an Apple maker note says: its tag 0x0011 (exiftool's MediaGroupUUID), the identifier a
    /// Live Photo's still shares with its video (`com.apple.quicktime.content.identifier`), and
    /// the tags of the photo's kind (`appleKindTags`), the note found once for all. Read here, not
    /// by libexif, which is never shown maker notes (`init`).
    static func readAppleMakerNote(in bytes: [UInt8], into e: inout PhotoEvidence) {
        guard let note = appleMakerNote(in: bytes) else { return }
        e.contentIdentifier = appleString(0x0011, in: note)
        appleKindTags(note, into: &e.kinds)
    }

    /// `BurstUUID` (0x000B) and `FrontFacingCamera` (0x0045), as exiftool's Apple table names them.
    static func appleKindTags(_ note: TIFFFields, into k: inout KindEvidence) {
        k.appleBurstUUID = appleString(0x000B, in: note)
        // An int32s (SLONG; a LONG read alike) in the entry's own value field, big-endian as the note is.
        if let entry = note.entry(0x0045, inIFDAt: 14), [4, 9].contains(note.u16(entry + 2)), note.u32(entry + 4) == 1,
           let value = note.u32(entry + 8) { k.appleFrontFacing = value }
    }

    /// An Apple maker note (`Apple iOS\0`, a version, `MM`; then a big-endian IFD at 14 whose
    /// offsets count from the note's start), at most 4 KiB of it.
    static func appleMakerNote(in bytes: [UInt8]) -> TIFFFields? {
        guard let (tiff, entry) = makerNoteEntry(in: bytes), let count = tiff.u32(entry + 4), let offset = tiff.u32(entry + 8),
              count >= 16, count <= 4096, tiff.start + offset + count <= bytes.count else { return nil }
        let note = Array(bytes[(tiff.start + offset)..<(tiff.start + offset + count)])
        guard note.starts(with: Array("Apple iOS\0".utf8)), note[12] == 0x4D, note[13] == 0x4D else { return nil }
        return TIFFFields(note, at: 0, bigEndian: true)
    }

    /// An ASCII tag of an Apple maker note, cut at its NUL (nil: absent, empty or over 256 bytes).
    static func appleString(_ tag: Int, in fields: TIFFFields) -> String? {
        let note = fields.bytes
        guard let id = fields.entry(tag, inIFDAt: 14), fields.u16(id + 2) == 2, let length = fields.u32(id + 4), length > 4, length <= 256,
              let at = fields.u32(id + 8), at + length <= note.count else { return nil }
        let text = note[at..<(at + length)].prefix { $0 != 0 }
        return text.isEmpty ? nil : String(decoding: text, as: UTF8.self)
    }

    /// Whether libexif interpreted a maker note (for tests: it must not).
    var hasMakerNoteData: Bool { exif_data_get_mnote_data(data) != nil }

    /// `ed->ifd[ifd]`: the macro `exif_data_get_entry` cannot be imported, so walk the tuple.
    private func content(_ ifd: ExifIfd) -> UnsafeMutablePointer<ExifContent>? {
        withUnsafeBytes(of: data.pointee.ifd) { raw in
            raw.bindMemory(to: UnsafeMutablePointer<ExifContent>?.self)[Int(ifd.rawValue)]
        }
    }

    private func entry(_ ifd: ExifIfd, _ tag: UInt32) -> UnsafeMutablePointer<ExifEntry>? {
        guard let c = content(ifd) else { return nil }
        return exif_content_get_entry(c, ExifTag(rawValue: tag))
    }

    /// An ASCII value, cut at the first NUL.
    func string(_ ifd: ExifIfd, _ tag: UInt32) -> String? {
        guard let e = entry(ifd, tag), let p = e.pointee.data, e.pointee.size > 0 else { return nil }
        let bytes = UnsafeBufferPointer(start: p, count: Int(e.pointee.size))
        let text = bytes.prefix { $0 != 0 }
        return String(decoding: text, as: UTF8.self)
    }

    /// `UserComment`: an 8-byte character-code prefix, then the text.
    func userComment() -> String? {
        guard let e = entry(EXIF_IFD_EXIF, 0x9286), let p = e.pointee.data, e.pointee.size > 8 else { return nil }
        let bytes = UnsafeBufferPointer(start: p, count: Int(e.pointee.size))
        let code = Array(bytes.prefix(8))
        let body = Array(bytes.dropFirst(8))
        if code.starts(with: Array("UNICODE".utf8)) {
            return Self.ucs2Text(body[...], blockIsBigEndian: order == EXIF_BYTE_ORDER_MOTOROLA)
        }
        return String(decoding: body.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// The text of a `UNICODE` comment: UCS-2 in the block's byte order, the standard says, but
    /// Microsoft's photo tools write it little-endian in big-endian blocks (exiftool guesses the
    /// order too). A byte-order mark decides; else the half of each pair that holds the zero bytes
    /// of Latin text ("S" is `00 53` big-endian); else the block's order.
    static func ucs2Text(_ body: ArraySlice<UInt8>, blockIsBigEndian: Bool) -> String {
        var bytes = body, bigEndian = blockIsBigEndian
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) {
            bigEndian = bytes.first == 0xFE
            bytes = bytes.dropFirst(2)
        } else {
            var zeros = (high: 0, low: 0)
            for (i, byte) in bytes.enumerated() where byte == 0 {
                if i % 2 == 0 { zeros.high += 1 } else { zeros.low += 1 }
            }
            if zeros.high != zeros.low { bigEndian = zeros.high > zeros.low }
        }
        var units: [UInt16] = []
        var i = bytes.startIndex
        while i + 1 < bytes.endIndex {
            let (a, b) = (UInt16(bytes[i]), UInt16(bytes[i + 1]))
            units.append(bigEndian ? a << 8 | b : b << 8 | a)
            i += 2
        }
        return String(decoding: units.prefix { $0 != 0 }, as: UTF16.self)
    }

    /// A whole number (Orientation): a SHORT, as the standard says, or the LONG or BYTE some
    /// software writes instead (exiftool, exiv2 and libvips read those too).
    func wholeNumber(_ ifd: ExifIfd, _ tag: UInt32) -> Int? {
        guard let e = entry(ifd, tag), let p = e.pointee.data else { return nil }
        switch e.pointee.format {
        case EXIF_FORMAT_SHORT where e.pointee.size >= 2: return Int(exif_get_short(p, order))
        case EXIF_FORMAT_LONG where e.pointee.size >= 4: return Int(exif_get_long(p, order))
        case EXIF_FORMAT_BYTE where e.pointee.size >= 1: return Int(p.pointee)
        default: return nil
        }
    }

    /// GPSDateStamp (0x001D) and GPSTimeStamp (0x0007, three RATIONALs) as `YYYY:MM:DD HH:MM:SS`.
    func gpsDateTime() -> String? {
        guard let date = string(EXIF_IFD_GPS, 0x001D), let e = entry(EXIF_IFD_GPS, 0x0007), let p = e.pointee.data,
              e.pointee.format == EXIF_FORMAT_RATIONAL, e.pointee.size >= 24 else { return nil }
        var parts: [Int] = []
        for i in 0..<3 {
            let r = exif_get_rational(p + i * 8, order)
            guard r.denominator != 0 else { return nil }
            parts.append(Int(r.numerator / r.denominator))
        }
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(date.trimmedValue) \(two(parts[0])):\(two(parts[1])):\(two(parts[2]))"
    }

    /// A GPS coordinate: three RATIONALs (degrees, minutes, seconds) and its reference letter
    /// (`N`/`S`, `E`/`W`; a letter missing or another one: no coordinate, since the hemisphere
    /// is unknown). Nil for a zero denominator or fewer than three values.
    func gpsCoordinate(_ tag: UInt32, reference: UInt32, positive: String, negative: String) -> Double? {
        guard let letter = string(EXIF_IFD_GPS, reference)?.trimmedValue.uppercased(), letter == positive || letter == negative,
              let e = entry(EXIF_IFD_GPS, tag), let p = e.pointee.data, e.pointee.format == EXIF_FORMAT_RATIONAL,
              e.pointee.size >= 24 else { return nil }
        var degrees = 0.0
        for (i, unit) in [1.0, 60.0, 3600.0].enumerated() {
            let r = exif_get_rational(p + i * 8, order)
            guard r.denominator != 0 else { return nil }
            degrees += Double(r.numerator) / Double(r.denominator) / unit
        }
        return letter == negative ? -degrees : degrees
    }

    func has(_ ifd: ExifIfd, _ tag: UInt32) -> Bool {
        guard let e = entry(ifd, tag) else { return false }
        return e.pointee.size > 0
    }

    /// An EXIF-IFD value, or the same tag misplaced in IFD0 (some cameras and editors write the
    /// dates there; exiftool reads them wherever they are, and so does albumfs).
    func exifString(_ tag: UInt32) -> String? {
        string(EXIF_IFD_EXIF, tag) ?? string(EXIF_IFD_0, tag)
    }

    /// Fills `evidence` with every field albumfs uses.
    func read(into e: inout PhotoEvidence) {
        e.make = string(EXIF_IFD_0, 0x010F)
        e.model = string(EXIF_IFD_0, 0x0110)
        e.software = string(EXIF_IFD_0, 0x0131)
        e.exifRating = wholeNumber(EXIF_IFD_0, 0x4746)
        e.kinds.customRendered = wholeNumber(EXIF_IFD_EXIF, 0xA401)
        e.kinds.lensModel = string(EXIF_IFD_EXIF, 0xA434)
        e.orientation = wholeNumber(EXIF_IFD_0, 0x0112)
        e.dateTimeOriginal = exifString(0x9003)
        e.dateTimeDigitized = exifString(0x9004)
        e.offsetTimeOriginal = exifString(0x9011)
        e.offsetTimeDigitized = exifString(0x9012)
        e.subSecTimeOriginal = exifString(0x9291)
        e.subSecTimeDigitized = exifString(0x9292)
        e.dateTime = string(EXIF_IFD_0, 0x0132)
        e.offsetTime = exifString(0x9010)
        e.userComment = userComment()
        e.gpsDateTimeUTC = gpsDateTime()
        e.gpsLatitude = gpsCoordinate(0x0002, reference: 0x0001, positive: "N", negative: "S")
        e.gpsLongitude = gpsCoordinate(0x0004, reference: 0x0003, positive: "E", negative: "W")
        // ExposureTime, FNumber, ISOSpeedRatings.
        e.hasExposureData = has(EXIF_IFD_EXIF, 0x829A) || has(EXIF_IFD_EXIF, 0x829D) || has(EXIF_IFD_EXIF, 0x8827)
    }
}

/// Bounds-checked reads of TIFF data (EXIF's IFDs) in either byte order; offsets count from `start`.
struct TIFFFields {
    let bytes: [UInt8]
    let start: Int
    let bigEndian: Bool

    /// The TIFF data at `start`, its byte order from its header (`MM` or `II`) unless given.
    init?(_ bytes: [UInt8], at start: Int, bigEndian: Bool? = nil) {
        guard bytes.count >= start + 8 else { return nil }
        self.bytes = bytes
        self.start = start
        if let bigEndian {
            self.bigEndian = bigEndian
            return
        }
        switch (bytes[start], bytes[start + 1]) {
        case (0x4D, 0x4D): self.bigEndian = true
        case (0x49, 0x49): self.bigEndian = false
        default: return nil
        }
    }

    func u16(_ at: Int) -> Int? {
        guard at >= 0, at + 2 <= bytes.count else { return nil }
        return bigEndian ? Int(bytes[at]) << 8 | Int(bytes[at + 1]) : Int(bytes[at + 1]) << 8 | Int(bytes[at])
    }

    func u32(_ at: Int) -> Int? {
        guard let a = u16(at), let b = u16(at + 2) else { return nil }
        return bigEndian ? a << 16 | b : b << 16 | a
    }

    /// Where the entry of `tag` lies in the IFD at `ifd` (an offset from `start`).
    func entry(_ tag: Int, inIFDAt ifd: Int) -> Int? {
        guard let n = u16(start + ifd) else { return nil }
        for i in 0..<min(n, 1000) {
            let at = start + ifd + 2 + 12 * i
            guard let t = u16(at) else { return nil }
            if t == tag { return at }
        }
        return nil
    }
}
