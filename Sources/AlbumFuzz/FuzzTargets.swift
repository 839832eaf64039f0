import AlbumCore
import AlbumIndex
import AlbumSystem
import AlbumMetadata
import AlbumThumbnails

/// The parsers of untrusted bytes, one fuzz target each (docs/security.md, "Fuzzing").
///
/// Each target takes the fuzzer's bytes as one input of its parser: a whole file for the header
/// readers (with the format's signature put in front where the input lacks it, so the fuzzer
/// explores that parser rather than the sniffer), an EXIF block, an XMP packet, a file name.
/// A parse must return (never trap, never read out of bounds: AddressSanitizer watches) and give
/// the same answer twice.
enum FuzzTarget: String, CaseIterable {
    /// Any file, sniffed as a scan does.
    case header
    case jpeg
    case png
    case heif
    /// A video's boxes (an MP4 `ftyp` put in front where missing), and a Live Photo's still-image-time.
    case video
    /// A WebP's RIFF chunks (`RIFF` size `WEBP` put in front where missing).
    case webp
    /// A TIFF's directories and the EXIF block made of them (`II*\0` and IFD0 at 8 put in front where missing).
    case tiff
    /// A JPEG XL container's boxes and the codestream's size header (the container's signature
    /// box put in front where the input starts like neither a container nor a bare codestream).
    case jxl
    /// A Fujifilm RAF's header and its embedded JPEG's (`FUJIFILMCCD-RAW ` put in front where missing).
    case raf
    /// A Canon CR3's boxes and the EXIF block made of `CMT1` and `CMT2` (an `ftyp crx ` box put in front where missing).
    case cr3
    /// An EXIF block through libexif (`Exif\0\0` put in front where missing).
    case exif
    /// An XMP packet: the properties the rules read.
    case xmp
    /// A file name: every date pattern the capture-date rules know.
    case filename
    /// A thumbnail rendered from the bytes as a render worker renders it (the decoders: libjpeg
    /// with its embedded previews and colour profiles, libpng, libheif, FFmpeg, libwebp, giflib,
    /// libtiff, libjxl), under small limits: the format the header reader finds, else the one the
    /// first byte names. A render answers an exact-size JPEG or an error, never a trap.
    case render
    /// A views snapshot (`ViewSnapshot.decode`, what a remount loads): a valid header for its key
    /// put in front where the input lacks one, so the fuzzer explores the records.
    case snapshot
    /// A Google Takeout JSON sidecar, and the capture date the rules make of it.
    case takeout
    /// An XMP sidecar (a whole file: dates, GPS, rating, keywords), and the capture date of it.
    case xmpsidecar
    /// An Android motion photo's video range: its XMP offsets and Samsung's trailer, the input
    /// a whole JPEG file (its signature put in front where missing), read as a Samsung phone's.
    case motionPhoto

    static let jpegSignature: [UInt8] = [0xFF, 0xD8, 0xFF]
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    static let heifSignature: [UInt8] = [0, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)
    static let videoSignature: [UInt8] = [0, 0, 0, 0x14] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("mp41".utf8)
    static let webpSignature: [UInt8] = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8)
    static let tiffSignature: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]
    static let jxlSignature: [UInt8] = JXLHeader.containerSignature
    static let exifSignature: [UInt8] = Array("Exif\0\0".utf8)
    static let rafSignature: [UInt8] = Array("FUJIFILMCCD-RAW ".utf8)
    static let cr3Signature: [UInt8] = [0, 0, 0, 0x18] + Array("ftypcrx ".utf8) + [0, 0, 0, 1] + Array("crx isom".utf8)

    /// Runs the parser on `input`; a wrong answer traps (the fuzzer keeps the input).
    func run(_ input: [UInt8]) {
        switch self {
        case .header: Self.parseTwice(input)
        case .jpeg: Self.parseTwice(Self.prefixed(input, Self.jpegSignature))
        case .png: Self.parseTwice(Self.prefixed(input, Self.pngSignature))
        case .heif: Self.parseTwice(Self.prefixed(input, Self.heifSignature))
        case .video:
            let file = input.count >= 8 && input[4..<8].elementsEqual("ftyp".utf8) ? input : Self.videoSignature + input
            Self.parseTwice(file)
            let moment = StillImageTime.seconds(size: Int64(file.count)) { offset, count in
                Array(file[Int(min(offset, Int64(file.count)))..<min(file.count, Int(offset) + count)])
            }
            precondition(moment.map { $0.isFinite && $0 >= 0 } ?? true, "video: a still-image-time of \(moment!)")
        case .webp: Self.parseTwice(WebPHeader.isWebP(input) ? input : Self.webpSignature + input)
        case .tiff: Self.parseTwice(TIFFHeader.isTIFF(input) ? input : Self.tiffSignature + input)
        case .jxl: Self.parseTwice(JXLHeader.isJXL(input) ? input : Self.jxlSignature + input)
        case .raf: Self.parseTwice(Self.prefixed(input, Self.rafSignature))
        case .cr3: Self.parseTwice(RawContainer.sniff(input) == .cr3 ? input : Self.cr3Signature + input)
        case .exif:
            let block = Self.prefixed(input, Self.exifSignature)
            precondition(MetadataReader.evidence(fromExif: block) == MetadataReader.evidence(fromExif: block), "exif: two answers")
        case .xmp:
            let packet = String(decoding: input, as: UTF8.self)
            for property in ["photoshop:DateCreated", "exif:DateTimeOriginal", "exif:UserComment"] {
                precondition(XMPProperties.value(of: property, in: packet) == XMPProperties.value(of: property, in: packet), "xmp: two answers")
            }
        case .render: Self.render(input)
        case .snapshot:
            let file = input.starts(with: Self.snapshotHeader.prefix(8)) ? input : Self.snapshotHeader + input
            let first = file.withUnsafeBytes { try? ViewSnapshot.decode($0, key: "fuzz", generation: 1) }
            let second = file.withUnsafeBytes { try? ViewSnapshot.decode($0, key: "fuzz", generation: 1) }
            precondition(first?.photos.count == second?.photos.count, "snapshot: two answers")
        case .filename:
            let name = FileNameBytes.string(input.filter { $0 != 0 && $0 != UInt8(ascii: "/") })
            let rules = CaptureDateRules(now: Timestamp(seconds: 1_900_000_000))
            let decided = rules.decide(PhotoEvidence(), fileName: name, fileMtime: Timestamp(seconds: 1_600_000_000))
            precondition(decided == rules.decide(PhotoEvidence(), fileName: name, fileMtime: Timestamp(seconds: 1_600_000_000)), "filename: two answers")
        case .takeout: Self.parseSidecarTwice(input, .takeout)
        case .xmpsidecar: Self.parseSidecarTwice(input, .xmp)
        case .motionPhoto:
            Self.locateMotionVideo(Self.prefixed(input, Self.jpegSignature))
        }
    }

    /// A motion photo's range, found twice alike, and only ever within the file at an `ftyp` box.
    private static func locateMotionVideo(_ file: [UInt8]) {
        func read(_ offset: Int64, _ count: Int) -> [UInt8] {
            guard offset >= 0, offset < Int64(file.count), count > 0 else { return [] }
            return Array(file[Int(offset)..<Int(min(Int64(file.count), offset + Int64(count)))])
        }
        let xmp = (try? JPEGHeader(read: { (offset: Int64, count: Int) throws(Errno) in read(offset, count) }))?.xmp
        let size = Int64(file.count)
        let found = MotionPhoto.locate(xmp: xmp, make: "samsung", size: size, read: read)
        precondition(found == MotionPhoto.locate(xmp: xmp, make: "samsung", size: size, read: read), "motionPhoto: two answers")
        if let range = found.video {
            precondition(range.offset >= 0 && range.length >= 16 && range.offset + range.length <= size
                         && read(range.offset + 4, 4) == Array("ftyp".utf8), "motionPhoto: a range that is no video in the file")
        }
    }

    /// The header of an empty library's snapshot under the key "fuzz", generation 1: what comes
    /// before its table of strings.
    static let snapshotHeader: [UInt8] = {
        let empty = LibraryViews.build(photos: [], ViewSettings(emptyMtime: Timestamp(seconds: 0)))
        return Array(ViewSnapshot.encode(empty, key: "fuzz", generation: 1).prefix(8 + 4 + 4 + 4 + 8))
    }()

    /// A render worker's renderer with small limits: 4 MP, 64 MB, one decode at a time.
    static let renderer = ThumbnailRenderer(maxPixels: 4_000_000, memory: DecodeMemory(limit: 64 << 20, oneAtATime: 64 << 20, decodesAtOnce: 1))

    private static func render(_ input: [UInt8]) {
        let formats = ImageFormat.allCases
        let found = input.withUnsafeBytes { MetadataReader.read(bytes: $0) }
        let format = found?.format ?? formats[Int(input.first ?? 0) % formats.count]
        let box = ThumbnailBox(width: 64, height: 48)!
        guard let bytes = try? renderer.render(input, format: format, orientation: Int(input.last ?? 1) % 9, box: box) else { return }
        precondition(bytes.starts(with: [0xFF, 0xD8, 0xFF]) && bytes.count >= 64 * 48 / 8, "render: \(bytes.count) bytes that are no JPEG thumbnail")
    }

    /// A sidecar's parse, twice, and the date the rules make of it (a JPEG's, and a format
    /// whose sidecar wins): the same answer each time, never a trap.
    private static func parseSidecarTwice(_ input: [UInt8], _ kind: SidecarEvidence.Kind) {
        let first = SidecarReading.evidence(input, kind: kind, relativePath: "a.jpg.json")
        precondition(first == SidecarReading.evidence(input, kind: kind, relativePath: "a.jpg.json"), "\(kind): two answers")
        guard case .success(let sidecar) = first else { return }
        var e = PhotoEvidence()
        e.sidecar = sidecar
        let rules = CaptureDateRules(now: Timestamp(seconds: 1_900_000_000))
        let decided = rules.decide(e, fileName: "a.jpg", fileMtime: Timestamp(seconds: 1_600_000_000), format: .jpeg)
        precondition(decided == rules.decide(e, fileName: "a.jpg", fileMtime: Timestamp(seconds: 1_600_000_000), format: .jpeg),
                     "\(kind): two dates")
    }

    private static func prefixed(_ input: [UInt8], _ signature: [UInt8]) -> [UInt8] {
        input.starts(with: signature) ? input : signature + input
    }

    private static func parseTwice(_ file: [UInt8]) {
        let first = file.withUnsafeBytes { MetadataReader.read(bytes: $0) }
        let second = file.withUnsafeBytes { MetadataReader.read(bytes: $0) }
        precondition(first?.format == second?.format && first?.evidence == second?.evidence, "header: two answers")
    }
}
