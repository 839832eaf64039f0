import AlbumCore
import AlbumSystem
import Glibc

/// The parts of an image file's header that every format has.
protocol ImageHeader {
    var width: Int? { get }
    var height: Int? { get }
    /// Whether the header ended before it should have (a truncated or odd file).
    var truncated: Bool { get }
    /// The EXIF block, starting with `Exif\0\0` (what libexif expects).
    var exif: [UInt8]? { get }
}

extension JPEGHeader: ImageHeader {}
extension PNGHeader: ImageHeader {}
extension HEIFHeader: ImageHeader {}
extension VideoHeader: ImageHeader {}
extension WebPHeader: ImageHeader {}
extension GIFHeader: ImageHeader {}
extension TIFFHeader: ImageHeader {}
extension JXLHeader: ImageHeader {}
extension RawHeader: ImageHeader {}

/// What one file turned out to be.
public struct FileMetadata: Sendable {
    public var format: ImageFormat
    public var evidence: PhotoEvidence
}

/// Reads the header of one file: its format by content, then EXIF, XMP and PNG text.
public enum MetadataReader {
    /// How much of a file the first read takes: the whole header of most phone JPEGs (EXIF ≤ 64 KiB).
    public static let firstBlock = 64 << 10
    /// The same for a file named `.png`: the chunks before a PNG's image data are small (no
    /// embedded thumbnail, unlike a JPEG's EXIF), and those after it are read apart (PNGHeader).
    /// A big PNG screenshot then costs ~30 KiB of reading instead of ~130 (a slow disk or a
    /// network share feels the bytes); a longer header, or a JPEG named `.png`, is read on.
    public static let firstBlockOfPNG = 16 << 10

    /// How many bytes to read first from a file of `size` bytes named `name`: a file smaller than
    /// the block is read whole into a buffer of its size, not into a fresh 64 KiB one (page faults
    /// for every file).
    public static func firstReadLength(size: Int64, name: String) -> Int {
        let block = hasPNGExtension(name) ? firstBlockOfPNG : firstBlock
        return Int(min(Int64(block), max(size, Int64(FormatSniffer.headerLength))))
    }

    /// Whether `name` ends in `.png`, any case (no allocation: this runs once per file of a scan).
    static func hasPNGExtension(_ name: String) -> Bool {
        // ASCII letters lowercased by their 0x20 bit; "." has it set already.
        name.utf8.suffix(4).lazy.map { $0 | 0x20 }.elementsEqual(".png".utf8)
    }

    /// Nil when the file is not a JPEG, PNG or HEIF image (including empty files shorter than a signature).
    /// A photo whose metadata is damaged is still returned, with `evidence.problems` saying why.
    /// - Parameters:
    ///   - size: the file's size (`fstat`; nil: asked here).
    ///   - name: the file's name (its extension sizes the first read).
    public static func read(_ file: SourceFile, size: Int64? = nil, name: String = "") throws(Errno) -> FileMetadata? {
        let size = if let size { size } else { Int64(try file.status().st_size) }
        let first = try file.read(at: 0, count: firstReadLength(size: size, name: name))
        let parsed = first.withUnsafeBytes { bytes in Result { () throws(Errno) in try read(file, first: bytes, size: size) } }
        return try parsed.get()
    }

    /// The same, from the first `firstReadLength` bytes of the file already read (fewer: the file
    /// ends there); later parts of a long header are read from `file`, `size` bytes long.
    public static func read(_ file: SourceFile, first: UnsafeRawBufferPointer, size: Int64) throws(Errno) -> FileMetadata? {
        var e = PhotoEvidence()
        guard let format = try read(file, first: first, size: size, into: &e) else { return nil }
        return FileMetadata(format: format, evidence: e)
    }

    /// The same, the evidence written into `e` (the caller's, moved from there into its record: a
    /// `FileMetadata` in between was two more copies of a dozen strings per photo). Nil when the
    /// file is no image (`e` untouched).
    public static func read(_ file: SourceFile, first: UnsafeRawBufferPointer, size: Int64,
                            into e: inout PhotoEvidence) throws(Errno) -> ImageFormat? {
        try read(CachedReader(file: file, first: first, fileSize: size), first: first, into: &e)
    }

    private static func read(_ reader: CachedReader, first: UnsafeRawBufferPointer, into e: inout PhotoEvidence) throws(Errno) -> ImageFormat? {
        guard let format = FormatSniffer.sniff(first) else { return nil }
        switch format {
        case .jpeg:
            let header = try reader.header { try JPEGHeader(prefix: first, read: $0) }
            readCommon(header, into: &e)
            if let xmp = header.xmp { readXMP(xmp, into: &e) }
            try readMotionVideo(reader, xmp: header.xmp, into: &e)
        case .png:
            let header = try reader.header { try PNGHeader(size: reader.size, read: $0) }
            readCommon(header, into: &e)
            for keyword in header.damagedText { e.problems.append("damaged compressed text (\(keyword))") }
            for keyword in header.overCap { e.problems.append(MetadataLimits.overCapProblem(keyword)) }
            if header.exifCut, let exif = header.exif {
                let unread = ExifReach.unread(in: exif)
                if !unread.isEmpty { e.problems.append(MetadataLimits.cutProblem("eXIf", unread: unread)) }
            }
            e.pngSoftware = header.text["Software"]
            if let xmp = header.xmp { readXMP(xmp, into: &e) }
            e.pngComment = [header.text["Comment"], header.text["Description"]].lazy.compactMap { $0 }
                .first { $0.utf8.count <= PhotoEvidence.pngCommentLimit }
        case .heif:
            let header = try reader.header { try HEIFHeader(size: reader.size, read: $0) }
            readCommon(header, into: &e)
            if header.imageMissing { e.problems.append(Unrenderable.noImageData) }
            if let xmp = header.xmp { readXMP(xmp, into: &e) }
            if header.hasMovie {
                let movie = try reader.header { try VideoHeader(size: reader.size, read: $0) }
                e.movieCreationTime = movie.creationTime
                e.quickTimeCreationDate = movie.keys["com.apple.quicktime.creationdate"]
            }
            for type in header.overCap {
                if type == "Exif" {
                    let unread = header.exif.map { ExifReach.unread(in: $0) } ?? ["TIFF header"]
                    if !unread.isEmpty { e.problems.append(MetadataLimits.cutProblem(type, unread: unread)) }
                } else if !XMPProperties.holdsAllRead(header.xmp ?? "") {
                    e.problems.append(MetadataLimits.cutProblem("XMP", unread: []))
                }
            }
        case .video:
            guard try readVideo(reader, into: &e) else { return nil }
        case .webp:
            let header = try reader.header { try WebPHeader(size: reader.size, read: $0) }
            readCommon(header, into: &e)
            if let xmp = header.xmp { readXMP(xmp, into: &e) }
            if header.exifCut, let exif = header.exif {
                let unread = ExifReach.unread(in: exif)
                if !unread.isEmpty { e.problems.append(MetadataLimits.cutProblem("EXIF", unread: unread)) }
            }
            if header.xmpOverCap { e.problems.append(MetadataLimits.overCapProblem("XMP")) }
        case .gif:
            readCommon(try reader.header { try GIFHeader(read: $0) }, into: &e)
        case .tiff:
            let header = try reader.header { try TIFFHeader(size: reader.size, read: $0) }
            readCommon(header, into: &e)
            // (A DNG, CR2, NEF, ARW, PEF or SRW: a camera RAW, not a TIFF photo.)
            if header.looksRaw { return .raw }
        case .raw:
            try readRaw(reader, container: RawContainer.sniff(first), into: &e)
        case .jxl:
            readJXL(try reader.header { try JXLHeader(size: reader.size, read: $0) }, into: &e)
        }
        return format
    }

    /// A camera RAW's EXIF, read by albumfs's own readers (no C library sees a RAW in the
    /// daemon): an Olympus or Panasonic one as the TIFF it is, a RAF or CR3 through its container.
    private static func readRaw(_ reader: CachedReader, container: RawContainer?, into e: inout PhotoEvidence) throws(Errno) {
        switch container {
        case .raf?, .cr3?:
            readCommon(try reader.header { try RawHeader(container!, size: reader.size, read: $0) }, into: &e)
        default:
            readCommon(try reader.header { try TIFFHeader(size: reader.size, read: $0) }, into: &e)
        }
    }

    /// A video's header into `e`; false when the file is no video (a movie without a video
    /// track: sound only). One whose movie box is missing (cut short) is a damaged video.
    private static func readVideo(_ reader: CachedReader, into e: inout PhotoEvidence) throws(Errno) -> Bool {
        let header = try reader.header { try VideoHeader(size: reader.size, read: $0) }
        guard header.hasVideoTrack || !header.hasMovie else { return false }
        readCommon(header, into: &e)
        if !header.hasMovie { e.problems.append(Unrenderable.noMovie) }
        if header.samplesPastEnd { e.problems.append(Unrenderable.samplesPastEnd) }
        e.movieCreationTime = header.creationTime
        e.quickTimeCreationDate = header.keys["com.apple.quicktime.creationdate"]
        e.contentIdentifier = header.keys["com.apple.quicktime.content.identifier"]
        e.make = header.keys["com.apple.quicktime.make"]
        e.model = header.keys["com.apple.quicktime.model"]
        e.software = header.keys["com.apple.quicktime.software"]
        e.kinds.playbackIntent = header.keys["com.apple.quicktime.full-frame-rate-playback-intent"]
        e.kinds.captureFPS = header.keys["com.android.capture.fps"]
        if let (latitude, longitude) = ISO6709.position(header.keys["com.apple.quicktime.location.ISO6709"]) {
            (e.gpsLatitude, e.gpsLongitude) = (latitude, longitude)
        }
        e.orientation = header.orientation
        if let xmp = header.xmp { readXMP(xmp, into: &e) }
        return true
    }

    /// A JPEG XL file's header into `e`: its boxes' EXIF and XMP, and what was left unread (a
    /// compressed box is inflated only by the decoder, in a render worker: the date falls back).
    private static func readJXL(_ header: JXLHeader, into e: inout PhotoEvidence) {
        readCommon(header, into: &e)
        if let xmp = header.xmp { readXMP(xmp, into: &e) }
        if header.exifCut, let exif = header.exif {
            let unread = ExifReach.unread(in: exif)
            if !unread.isEmpty { e.problems.append(MetadataLimits.cutProblem("Exif", unread: unread)) }
        }
        if header.xmpOverCap { e.problems.append(MetadataLimits.overCapProblem("xml")) }
        for type in header.compressed { e.problems.append(JXLHeader.compressedProblem(type)) }
    }

    /// A motion photo's video range into `e`; a video announced but not where its marker says is
    /// named among the problems (the still stays a photo).
    private static func readMotionVideo(_ reader: CachedReader, xmp: String?, into e: inout PhotoEvidence) throws(Errno) {
        let motion = try reader.header { try MotionPhoto.locate(xmp: xmp, make: e.make, size: reader.size, read: $0) }
        e.motionVideo = motion.video
        if let refusal = motion.refusal { e.problems.append(MotionPhoto.problem(refusal)) }
    }

    /// The same for a whole file already in memory (the fuzz targets: nothing is read from disk).
    public static func read(bytes: UnsafeRawBufferPointer) -> FileMetadata? {
        var e = PhotoEvidence()
        let reader = CachedReader(file: nil, first: bytes, fileSize: Int64(bytes.count))
        guard let format = try? read(reader, first: bytes, into: &e) else { return nil }
        return FileMetadata(format: format, evidence: e)
    }

    /// What every format's header gives: the size, whether it was cut short, its EXIF.
    static func readCommon(_ header: some ImageHeader, into e: inout PhotoEvidence) {
        e.pixelWidth = header.width
        e.pixelHeight = header.height
        if header.truncated { e.problems.append(Unrenderable.headerTruncated) }
        readExif(header.exif, into: &e)
    }

    /// What an EXIF block (`Exif\0\0` and TIFF data) says, alone (the fuzz targets).
    public static func evidence(fromExif bytes: [UInt8]) -> PhotoEvidence {
        var e = PhotoEvidence()
        readExif(bytes, into: &e)
        return e
    }

    static func readExif(_ bytes: [UInt8]?, into e: inout PhotoEvidence) {
        guard let bytes else { return }
        ExifBlock.readAppleMakerNote(in: bytes, into: &e)
        ExifBlock.reading(ExifReach.withinReach(bytes)) { block in
            guard let block else { return e.problems.append("corrupt EXIF") }
            block.read(into: &e)
        }
    }

    /// The XMP properties `readXMP` reads.
    static let xmpPropertiesRead = ["photoshop:DateCreated", "exif:DateTimeOriginal", "xmp:CreateDate", "exif:UserComment"]

    static func readXMP(_ xmp: String, into e: inout PhotoEvidence) {
        e.xmpDateCreated = XMPProperties.value(of: "photoshop:DateCreated", in: xmp)
        e.xmpDateTimeOriginal = XMPProperties.value(of: "exif:DateTimeOriginal", in: xmp)
        e.xmpCreateDate = XMPProperties.value(of: "xmp:CreateDate", in: xmp)
        e.xmpRating = XMPProperties.value(of: "xmp:Rating", in: xmp)
        // Google Camera's kinds (a Bag of special types; its first item names the kind).
        e.kinds.specialTypeID = XMPProperties.items(of: "GCamera:SpecialTypeID", in: xmp).first
            ?? XMPProperties.value(of: "GCamera:SpecialTypeID", in: xmp)
        e.kinds.googleBurstID = XMPProperties.value(of: "GCamera:BurstID", in: xmp)
        e.kinds.projectionType = XMPProperties.value(of: "GPano:ProjectionType", in: xmp)
        e.xmpUserComment = e.xmpUserComment ?? XMPProperties.value(of: "exif:UserComment", in: xmp)
    }
}

/// Serves reads from the first block already read, and from the file beyond it.
private struct CachedReader {
    /// Nil: the whole file is `first`.
    let file: SourceFile?
    let first: UnsafeRawBufferPointer
    /// The file's length as `fstat` said: the first block holds the whole file when it is as long.
    let fileSize: Int64

    var size: Int64 { fileSize }
    /// Whether the first block is the whole file (then no further read can find more).
    private var holdsAll: Bool { Int64(first.count) >= fileSize }

    func read(_ offset: Int64, _ count: Int) throws(Errno) -> [UInt8] {
        guard count > 0, offset >= 0 else { return [] }
        let end = offset + Int64(count)
        if end <= Int64(first.count) || holdsAll {
            // Inside the first block, or the file is no longer than it.
            guard offset < Int64(first.count) else { return [] }
            // (Copied whole, not element by element as `Array(first[range])` does.)
            let range = Int(offset)..<Int(min(end, Int64(first.count)))
            return [UInt8](unsafeUninitializedCapacity: range.count) { buffer, initialized in
                buffer.baseAddress!.initialize(from: first.baseAddress!.advanced(by: range.lowerBound).assumingMemoryBound(to: UInt8.self), count: range.count)
                initialized = range.count
            }
        }
        guard let file else { return [] }
        return try file.read(at: offset, count: count)
    }

    /// Runs a header parser over this reader, keeping the errno of a failed read.
    func header<H>(_ parse: ((Int64, Int) throws -> [UInt8]) throws -> H) throws(Errno) -> H {
        do {
            return try parse { offset, count in try read(offset, count) }
        } catch let code as Errno {
            throw code
        } catch {
            throw Errno.ioError
        }
    }
}
