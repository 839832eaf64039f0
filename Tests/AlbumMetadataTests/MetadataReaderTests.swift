import AlbumCore
@testable import AlbumMetadata
import CExif
import AlbumSample
import Foundation
import XCTest

/// Reads files that the sample generator writes; EXIF is built by AlbumSample's own writer and
/// parsed by libexif, so the two sides never share code.
final class MetadataReaderTests: FolderTestCase {
    func read(_ bytes: [UInt8]) throws -> FileMetadata? {
        let path = folder + "/f"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        return try MetadataReader.read(SourceFile(path: path))
    }

    /// A damaged input, read from a file and from memory: both must answer, and alike (the two
    /// read paths share the parsers, not the reads), whatever the damage. `rng` names the seed.
    @discardableResult
    func readDamaged(_ bytes: [UInt8], _ rng: SeededGenerator, file: StaticString = #filePath, line: UInt = #line) throws -> FileMetadata? {
        let fromFile = try read(bytes)
        let fromMemory = bytes.withUnsafeBytes { MetadataReader.read(bytes: $0) }
        XCTAssertEqual(fromFile?.format, fromMemory?.format, "\(rng)", file: file, line: line)
        XCTAssertEqual(fromFile?.evidence.dateTimeOriginal, fromMemory?.evidence.dateTimeOriginal, "\(rng)", file: file, line: line)
        XCTAssertEqual(fromFile?.evidence.problems, fromMemory?.evidence.problems, "\(rng)", file: file, line: line)
        return fromFile
    }

    func testSniffsByContent() throws {
        let jpeg = try SampleJPEG.jpeg(.marker(width: 8, height: 8))
        let png = try SamplePNG.png(.marker(width: 8, height: 8))
        XCTAssertEqual(FormatSniffer.sniff(jpeg), .jpeg)
        XCTAssertEqual(FormatSniffer.sniff(png), .png)
        XCTAssertEqual(FormatSniffer.sniff(Array("GIF89a..".utf8)), .gif)
        XCTAssertEqual(FormatSniffer.sniff(Array("RIFF\0\0\0\0WEBPVP8 ".utf8)), .webp)
        XCTAssertEqual(FormatSniffer.sniff([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8]), .tiff)
        XCTAssertEqual(FormatSniffer.sniff([0xFF, 0x0A, 0xFA, 0x7F, 0, 0, 0, 0]), .jxl, "a bare JPEG XL codestream")
        XCTAssertEqual(FormatSniffer.sniff([0, 0, 0, 0x0C] + Array("JXL \r\n".utf8) + [0x87, 0x0A, 0, 0, 0, 0x14]), .jxl, "a JPEG XL container")
        XCTAssertNil(FormatSniffer.sniff([0, 0, 0, 0x0C] + Array("JXL \r\n".utf8) + [0x87, 0x0B]), "a signature box with the wrong bytes")
        XCTAssertNil(FormatSniffer.sniff(Array("BM6\0\0\0\0\0".utf8)), "BMP is not read")
        XCTAssertNil(FormatSniffer.sniff([]))
        XCTAssertNil(FormatSniffer.sniff([0xFF, 0xD8]))
    }

    func testCameraExifInBothByteOrders() throws {
        for order in [ExifWriter.ByteOrder.intel, .motorola] {
            var exif = SampleExif.camera("Canon", "EOS", ExifTime("2023:07:14 18:22:05", subSec: "50", offset: "-03:00"), order: order, orientation: 6)
            exif.software = "Firmware 1.0"
            let bytes = SampleJPEG.insertingAPP1(exif.payload(), into: try SampleJPEG.jpeg(.marker(width: 32, height: 16)))
            let m = try XCTUnwrap(try read(bytes))
            XCTAssertEqual(m.format, .jpeg)
            let e = m.evidence
            XCTAssertEqual(e.make, "Canon")
            XCTAssertEqual(e.model, "EOS")
            XCTAssertEqual(e.software, "Firmware 1.0")
            XCTAssertEqual(e.dateTimeOriginal, "2023:07:14 18:22:05")
            XCTAssertEqual(e.subSecTimeOriginal, "50")
            XCTAssertEqual(e.offsetTimeOriginal, "-03:00")
            XCTAssertEqual(e.orientation, 6)
            XCTAssertTrue(e.hasExposureData)
            XCTAssertTrue(e.hasCameraEvidence)
            XCTAssertEqual(e.pixelWidth, 32)
            XCTAssertEqual(e.pixelHeight, 16)
            XCTAssertEqual(e.problems, [])
        }
    }

    /// Orientation written as a LONG or a BYTE (not the SHORT the standard says) is read, as
    /// exiftool, exiv2 and libvips read it; a RATIONAL or text is not a number of it.
    func testOrientationOfAnyWholeNumberType() throws {
        let jpeg = try SampleJPEG.jpeg(.marker(width: 8, height: 8))
        for order in [ExifWriter.ByteOrder.intel, .motorola] {
            for (value, expected): (ExifWriter.Value, Int?) in [(.long(6), 6), (.undefined([3]), nil), (.short(8), 8), (.ascii("6"), nil),
                                                                (.rational(6, 1), nil)] {
                var w = ExifWriter(order: order)
                w.ifd0[0x0112] = value
                let e = try XCTUnwrap(try read(SampleJPEG.insertingAPP1(w.payload(), into: jpeg))).evidence
                XCTAssertEqual(e.orientation, expected, "\(value) \(order)")
            }
        }
        var w = ExifWriter()
        w.ifd0[0x0112] = .byte(5)
        XCTAssertEqual(try XCTUnwrap(try read(SampleJPEG.insertingAPP1(w.payload(), into: jpeg))).evidence.orientation, 5)
    }

    func testUserCommentAndXMP() throws {
        var exif = SampleExif()
        exif.userComment = "Screenshot"
        var bytes = try SampleJPEG.jpeg(.marker(width: 8, height: 8))
        bytes = SampleJPEG.insertingAPP1(SampleXMP.xmpAPP1(SampleXMP.xmpPacket([("photoshop:DateCreated", "2015-05-05T05:05:05+05:30"),
                                                                           ("exif:UserComment", "Screenshot")])), into: bytes)
        bytes = SampleJPEG.insertingAPP1(exif.payload(), into: bytes)
        let e = try XCTUnwrap(try read(bytes)).evidence
        XCTAssertEqual(e.userComment, "Screenshot")
        XCTAssertEqual(e.xmpUserComment, "Screenshot")
        XCTAssertEqual(e.xmpDateCreated, "2015-05-05T05:05:05+05:30")
    }

    /// Some phones write the EXIF segment after the frame header (SOF), just before the scan.
    func testExifAfterTheFrameHeader() throws {
        let jpeg = try SampleJPEG.jpeg(.marker(width: 24, height: 16))
        // The scan's marker, found by walking the segments (its bytes cannot occur in a header).
        var at = 2
        while !(jpeg[at] == 0xFF && jpeg[at + 1] == 0xDA) { at += 2 + (Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3])) }
        let payload = SampleExif.camera("HUAWEI", "P30", "2019:09:10 11:12:13").payload()
        let segment = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        let e = try XCTUnwrap(try read(Array(jpeg[..<at]) + segment + Array(jpeg[at...])))
        XCTAssertEqual(e.evidence.dateTimeOriginal, "2019:09:10 11:12:13")
        XCTAssertEqual(e.evidence.pixelWidth, 24)
        XCTAssertEqual(e.evidence.pixelHeight, 16)
        XCTAssertEqual(e.evidence.problems, [])
    }

    /// Extended XMP (depth maps, motion photo data: many 64 KiB APP1 segments) is skipped, not read.
    func testSegmentsNotWantedAreNotRead() throws {
        var jpeg = SampleJPEG.insertingAPP1(SampleExif.camera("Google", "Pixel 8", "2024:01:02 03:04:05").payload(),
                                          into: try SampleJPEG.jpeg(.marker(width: 8, height: 8)))
        for _ in 0..<3 {
            jpeg = SampleJPEG.insertingAPP1(Array("http://ns.adobe.com/xmp/extension/\0".utf8) + [UInt8](repeating: 0x41, count: 60_000), into: jpeg)
        }
        var bytesRead = 0
        let header = JPEGHeader { offset, count in
            let start = min(Int(offset), jpeg.count)
            let bytes = Array(jpeg[start..<min(start + count, jpeg.count)])
            bytesRead += bytes.count
            return bytes
        }
        XCTAssertNotNil(header.exif)
        XCTAssertEqual(header.width, 8)
        XCTAssertFalse(header.truncated)
        XCTAssertLessThan(bytesRead, 10_000, "read \(bytesRead) of \(jpeg.count) bytes")
    }

    /// Fill bytes before a marker are skipped, a few as encoders write them; a long run is no
    /// header but erased flash (0xFF), given up on after a bounded number of reads.
    func testFillBytesAreSkippedButARunOfErasedFlashIsNot() throws {
        let jpeg = SampleJPEG.insertingAPP1(SampleExif.camera("Google", "Pixel 8", "2024:01:02 03:04:05").payload(),
                                          into: try SampleJPEG.jpeg(.marker(width: 8, height: 8)))
        let padded = Array(jpeg[0..<2]) + [UInt8](repeating: 0xFF, count: 7) + Array(jpeg[2...])
        let fine = JPEGHeader { offset, count in Array(padded[min(Int(offset), padded.count)..<min(Int(offset) + count, padded.count)]) }
        XCTAssertNotNil(fine.exif)
        XCTAssertEqual(fine.width, 8)
        let erased: [UInt8] = [0xFF, 0xD8] + [UInt8](repeating: 0xFF, count: 4 << 20)
        var reads = 0
        let header = JPEGHeader { offset, count in
            reads += 1
            return Array(erased[min(Int(offset), erased.count)..<min(Int(offset) + count, erased.count)])
        }
        XCTAssertTrue(header.truncated)
        XCTAssertNil(header.exif)
        XCTAssertLessThanOrEqual(reads, JPEGSegmentWalk.maxFillBytes + 2, "one run of fill bytes, then given up")
    }

    /// A Canon camera's EXIF with a maker note of `entries` entries (inline SHORT pairs), as libexif's
    /// Canon reader expects it.
    static func canonWithMakerNote(_ order: ExifWriter.ByteOrder, entries: Int = 40) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { order == .intel ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
        var note = u16(entries)
        for tag in 1...entries { note += u16(tag) + u16(3) + u16(2) + u16(0) + u16(tag) + u16(tag * 2) }
        note += [0, 0, 0, 0]
        var w = ExifWriter(order: order)
        w.ifd0[0x010F] = .ascii("Canon")
        w.ifd0[0x0110] = .ascii("Canon EOS R6")
        w.exif[0x9003] = .ascii("2022:02:03 04:05:06")
        w.exif[0x829A] = .rational(1, 200)
        w.exif[0x927C] = .undefined(note)
        return w.payload()
    }

    /// libexif interprets maker notes it knows; albumfs hides them from it (it never uses them,
    /// and cameras and editors damage them most), and reads everything else as before.
    func testMakerNotesAreHiddenFromLibexif() throws {
        for order in [ExifWriter.ByteOrder.intel, .motorola] {
            let payload = Self.canonWithMakerNote(order)
            // The fixture is a maker note libexif does interpret when given it as it is.
            let raw = try XCTUnwrap(exif_data_new())
            payload.withUnsafeBufferPointer { exif_data_load_data(raw, $0.baseAddress, UInt32($0.count)) }
            XCTAssertNotNil(exif_data_get_mnote_data(raw), "\(order)")
            exif_data_unref(raw)
            XCTAssertNotNil(ExifBlock.makerNoteCount(in: payload))
            let block = try XCTUnwrap(ExifBlock(payload))
            XCTAssertFalse(block.hasMakerNoteData, "\(order)")
            var e = PhotoEvidence()
            block.read(into: &e)
            XCTAssertEqual(e.dateTimeOriginal, "2022:02:03 04:05:06")
            XCTAssertEqual(e.make, "Canon")
            XCTAssertTrue(e.hasCameraEvidence)
        }
        // Damaged structures: no maker note found, no crash.
        let payload = Self.canonWithMakerNote(.intel)
        for n in stride(from: 0, through: payload.count, by: 3) { _ = ExifBlock.makerNoteCount(in: Array(payload.prefix(n))) }
        XCTAssertNil(ExifBlock.makerNoteCount(in: Array("Exif\0\0XX\0*".utf8) + [UInt8](repeating: 0xFF, count: 40)))
    }

    /// Dates misplaced in IFD0 (some cameras and editors) are read as exiftool reads them.
    func testDatesMisplacedInIFD0() throws {
        for order in [ExifWriter.ByteOrder.intel, .motorola] {
            var w = ExifWriter(order: order)
            w.ifd0[0x9003] = .ascii("2009:10:11 12:13:14")
            w.ifd0[0x9011] = .ascii("-03:00")
            w.ifd0[0x9004] = .ascii("2009:10:11 12:13:15")
            let bytes = SampleJPEG.insertingAPP1(w.payload(), into: try SampleJPEG.jpeg(.marker(width: 8, height: 8)))
            let e = try XCTUnwrap(try read(bytes)).evidence
            XCTAssertEqual(e.dateTimeOriginal, "2009:10:11 12:13:14", "\(order)")
            XCTAssertEqual(e.offsetTimeOriginal, "-03:00", "\(order)")
            XCTAssertEqual(e.dateTimeDigitized, "2009:10:11 12:13:15", "\(order)")
        }
        // Where both hold one, the EXIF IFD's wins.
        var w = ExifWriter(order: .intel)
        w.ifd0[0x9003] = .ascii("2001:01:01 01:01:01")
        w.exif[0x9003] = .ascii("2002:02:02 02:02:02")
        let bytes = SampleJPEG.insertingAPP1(w.payload(), into: try SampleJPEG.jpeg(.marker(width: 8, height: 8)))
        XCTAssertEqual(try read(bytes)?.evidence.dateTimeOriginal, "2002:02:02 02:02:02")
    }

    func testUnicodeUserCommentInBothByteOrders() throws {
        for order in [ExifWriter.ByteOrder.intel, .motorola] {
            var w = ExifWriter(order: order)
            let units = Array("Screenshot".utf16)
            let body = units.flatMap { u -> [UInt8] in order == .intel ? [UInt8(u & 0xFF), UInt8(u >> 8)] : [UInt8(u >> 8), UInt8(u & 0xFF)] }
            w.exif[0x9286] = .undefined(Array("UNICODE\0".utf8) + body)
            let bytes = SampleJPEG.insertingAPP1(w.payload(), into: try SampleJPEG.jpeg(.marker(width: 8, height: 8)))
            XCTAssertEqual(try read(bytes)?.evidence.userComment, "Screenshot", "\(order)")
        }
    }

    /// Microsoft's photo tools write a `UNICODE` comment little-endian whatever the block's order;
    /// others put a byte-order mark first. Either way the text reads as written.
    func testUnicodeUserCommentInTheOtherByteOrderOrWithAMark() throws {
        let little = Array("Screenshot".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let big = Array("Screenshot".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let cases: [(ExifWriter.ByteOrder, [UInt8], String)] = [
            (.motorola, little, "little-endian in a big-endian block"),
            (.intel, big, "big-endian in a little-endian block"),
            (.motorola, [0xFF, 0xFE] + little, "little-endian mark"),
            (.intel, [0xFE, 0xFF] + big, "big-endian mark"),
            (.motorola, little + [0, 0, 0, 0], "padded with NULs"),
        ]
        for (order, body, what) in cases {
            var w = ExifWriter(order: order)
            w.exif[0x9286] = .undefined(Array("UNICODE\0".utf8) + body)
            let bytes = SampleJPEG.insertingAPP1(w.payload(), into: try SampleJPEG.jpeg(.marker(width: 8, height: 8)))
            XCTAssertEqual(try read(bytes)?.evidence.userComment, "Screenshot", what)
        }
        // Text with no Latin letters has no zero bytes to tell by: the block's order.
        XCTAssertEqual(ExifBlock.ucs2Text([0x30, 0xB9, 0x30, 0xAF], blockIsBigEndian: true), "スク")
    }

    func testPNGTextXMPAndSize() throws {
        var png = try SamplePNG.png(.marker(width: 20, height: 40))
        png = SamplePNG.insertingChunk("tEXt", SamplePNG.textChunk("Software", "gnome-screenshot"), into: png)
        png = SamplePNG.insertingChunk("iTXt", SamplePNG.iTextChunk("XML:com.adobe.xmp",
                                                                 SampleXMP.xmpPacket([("exif:UserComment", "Screenshot")])), into: png)
        let m = try XCTUnwrap(try read(png))
        XCTAssertEqual(m.format, .png)
        XCTAssertEqual(m.evidence.pngSoftware, "gnome-screenshot")
        XCTAssertEqual(m.evidence.xmpUserComment, "Screenshot")
        XCTAssertEqual(m.evidence.pixelWidth, 20)
        XCTAssertEqual(m.evidence.pixelHeight, 40)
    }

    /// The reader keeps a short PNG `Comment` (else `Description`) whatever it says: the screenshot
    /// rule judges it. A long one (a caption, a licence) is not carried into the index.
    func testPNGCommentIsKeptWhenShort() throws {
        let png = try SamplePNG.png(.marker(width: 8, height: 8))
        func comment(_ chunks: [(String, String)]) throws -> String? {
            var p = png
            for (key, value) in chunks { p = SamplePNG.insertingChunk("tEXt", SamplePNG.textChunk(key, value), into: p) }
            return try XCTUnwrap(try read(p)).evidence.pngComment
        }
        XCTAssertEqual(try comment([("Comment", "Made with love")]), "Made with love")
        XCTAssertEqual(try comment([("Description", "Screenshot")]), "Screenshot")
        let long = String(repeating: "A licence. ", count: 20)
        XCTAssertEqual(try comment([("Comment", long), ("Description", "Screenshot")]), "Screenshot")
        XCTAssertNil(try comment([("Comment", long)]))
        XCTAssertNil(try comment([("Title", "Screenshot")]), "another keyword")
    }

    func testPNGeXIfChunk() throws {
        var exif = SampleExif()
        exif.dateTimeOriginal = "2021:02:03 04:05:06"
        let tiff = Array(exif.payload().dropFirst(6))
        let png = SamplePNG.insertingChunk("eXIf", tiff, into: try SamplePNG.png(.marker(width: 4, height: 4)))
        XCTAssertEqual(try read(png)?.evidence.dateTimeOriginal, "2021:02:03 04:05:06")
    }

    /// A PNG big enough that its image data runs past the first 64 KiB read (noise does not compress).
    func noisyPNG(side: Int = 200) throws -> [UInt8] {
        var rng = SeededGenerator.forTest(0x9015E)
        let pixels = (0..<(side * side * 3)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let png = try SamplePNG.png(SampleImage(width: side, height: side, pixels: pixels))
        XCTAssertGreaterThan(png.count, MetadataReader.firstBlock)
        return png
    }

    func testPNGMetadataAfterTheImageData() throws {
        let tiff = Array(SampleExif.camera("Canon", "EOS R5", "2021:02:03 04:05:06").payload().dropFirst(6))
        for png in [try SamplePNG.png(.marker(width: 4, height: 4)), try noisyPNG()] {
            var p = SamplePNG.appendingChunk("eXIf", tiff, to: png)
            p = SamplePNG.appendingChunk("tEXt", SamplePNG.textChunk("Software", "gnome-screenshot"), to: p)
            let e = try XCTUnwrap(try read(p)).evidence
            XCTAssertEqual(e.dateTimeOriginal, "2021:02:03 04:05:06", "\(png.count) bytes")
            XCTAssertTrue(e.hasCameraEvidence)
            XCTAssertEqual(e.pngSoftware, "gnome-screenshot")
            XCTAssertEqual(e.problems, [])
        }
        // More metadata after the image data than the tail window holds: the chunks in the window
        // are still found (the first one whole by its CRC), the one cut by the window is not.
        var p = SamplePNG.appendingChunk("tEXt", SamplePNG.textChunk("Software", "Cut By The Window"), to: try noisyPNG())
        p = SamplePNG.appendingChunk("tEXt", SamplePNG.textChunk("Padding", String(repeating: "x", count: PNGHeader.tailWindow - 40)), to: p)
        p = SamplePNG.appendingChunk("iTXt", SamplePNG.iTextChunk("XML:com.adobe.xmp", SampleXMP.xmpPacket([("exif:UserComment", "Screenshot")])), to: p)
        let e = try XCTUnwrap(try read(p)).evidence
        XCTAssertEqual(e.xmpUserComment, "Screenshot")
        XCTAssertNil(e.pngSoftware)
    }

    /// The end of a big PNG is read in a small window when that shows the last image data chunk
    /// (libpng writes 8 KiB `IDAT`s): ~12 KiB read per screenshot, not 64, on a slow disk or share.
    /// When the last chunk is bigger (here one `IDAT` holds all the image data), the metadata after
    /// it is still found, in the big window.
    func testPNGTailIsReadInASmallWindowWhenItShowsTheImageData() throws {
        let tiff = Array(SampleExif.camera("Canon", "EOS R5", "2021:02:03 04:05:06").payload().dropFirst(6))
        func header(_ png: [UInt8]) -> (header: PNGHeader, bytesRead: Int) {
            var bytesRead = 0
            let h = PNGHeader(size: Int64(png.count)) { offset, count in
                let part = Array(png[Int(offset)..<min(png.count, Int(offset) + count)])
                bytesRead += part.count
                return part
            }
            return (h, bytesRead)
        }
        let noisy = try noisyPNG(side: 300)
        // One IDAT chunk of all the image data: signature and IHDR, IDAT, IEND.
        var imageData: [UInt8] = []
        var at = 33
        while let length = noisy.be32(at), at + 12 + length <= noisy.count {
            if Array(noisy[(at + 4)..<(at + 8)]) == Array("IDAT".utf8) { imageData += noisy[(at + 8)..<(at + 8 + length)] }
            at += 12 + length
        }
        XCTAssertGreaterThan(imageData.count, PNGHeader.tailWindow)
        let oneChunk = SamplePNG.appendingChunk("IDAT", imageData, to: Array(noisy.prefix(33) + noisy.suffix(12)))

        let plain = header(noisy)
        XCTAssertLessThan(plain.bytesRead, 8192 + 12 + PNGHeader.tailSlack + 100, "nothing after the image data: the small window tells")
        let after = header(SamplePNG.appendingChunk("eXIf", tiff, to: noisy))
        XCTAssertEqual(after.header.exif.map(Array.init), PNGHeader.exifBlock(tiff))
        XCTAssertLessThan(after.bytesRead, 8192 + 12 + PNGHeader.tailSlack + 100)
        let big = header(SamplePNG.appendingChunk("eXIf", tiff, to: oneChunk))
        XCTAssertEqual(big.header.exif.map(Array.init), PNGHeader.exifBlock(tiff), "found in the big window")
        XCTAssertGreaterThan(big.bytesRead, PNGHeader.tailWindow)
        // Metadata filling the small window (no IDAT in it): the big window finds what lies before.
        var p = SamplePNG.appendingChunk("eXIf", tiff, to: noisy)
        p = SamplePNG.appendingChunk("tEXt", SamplePNG.textChunk("Padding", String(repeating: "x", count: 8192 + PNGHeader.tailSlack)), to: p)
        XCTAssertEqual(header(p).header.exif.map(Array.init), PNGHeader.exifBlock(tiff))
    }

    func testCompressedPNGText() throws {
        let png = try SamplePNG.png(.marker(width: 8, height: 8))
        let xmp = SampleXMP.xmpPacket([("photoshop:DateCreated", "2019-02-03T04:05:06+01:00")])
        var p = SamplePNG.insertingChunk("iTXt", SamplePNG.compressedITextChunk("XML:com.adobe.xmp", xmp), into: png)
        p = SamplePNG.insertingChunk("zTXt", SamplePNG.compressedTextChunk("Comment", "Screenshot"), into: p)
        p = SamplePNG.insertingChunk("zTXt", SamplePNG.compressedTextChunk("Software", "Spectacle é"), into: p)
        let e = try XCTUnwrap(try read(p)).evidence
        XCTAssertEqual(e.xmpDateCreated, "2019-02-03T04:05:06+01:00")
        XCTAssertEqual(e.pngComment, "Screenshot")
        XCTAssertNil(e.xmpUserComment, "a PNG comment is not XMP's UserComment")
        XCTAssertEqual(e.pngSoftware, "Spectacle é")
        // Damaged compressed text is skipped, the rest still read.
        var damaged = SamplePNG.compressedTextChunk("Software", "Spectacle")
        damaged.removeLast(4)
        damaged[damaged.count - 3] ^= 0xFF
        let d = try XCTUnwrap(try read(SamplePNG.insertingChunk("zTXt", damaged, into: SamplePNG.insertingChunk("eXIf",
            Array(SampleExif.camera("A", "B", "2017:04:01 10:00:00").payload().dropFirst(6)), into: png))))
        XCTAssertNil(d.evidence.pngSoftware)
        XCTAssertEqual(d.evidence.dateTimeOriginal, "2017:04:01 10:00:00")
        XCTAssertEqual(d.evidence.problems, ["damaged compressed text (Software)"], "said, as exiftool warns")
    }

    /// ImageMagick (and older tools) keep EXIF and XMP as hex text in `Raw profile type …` chunks.
    func testImageMagickRawProfiles() throws {
        let png = try SamplePNG.png(.marker(width: 8, height: 8))
        let payload = SampleExif.camera("NIKON", "Z 6", "2018:05:06 07:08:09").payload()
        for (name, bytes) in [("exif", payload), ("APP1", payload), ("exif", Array(payload.dropFirst(6)))] {
            let p = SamplePNG.insertingChunk("zTXt", SamplePNG.compressedTextChunk("Raw profile type \(name)", SamplePNG.rawProfile(name, bytes)), into: png)
            let e = try XCTUnwrap(try read(p)).evidence
            XCTAssertEqual(e.dateTimeOriginal, "2018:05:06 07:08:09", name)
            XCTAssertTrue(e.hasCameraEvidence, name)
        }
        // A file cut right after the profile (the walk ends early) keeps it.
        let chunk = SamplePNG.compressedTextChunk("Raw profile type exif", SamplePNG.rawProfile("exif", payload))
        let cut = Array(SamplePNG.insertingChunk("zTXt", chunk, into: png).prefix(33 + 12 + chunk.count + 5))
        let c = try XCTUnwrap(try read(cut)).evidence
        XCTAssertEqual(c.dateTimeOriginal, "2018:05:06 07:08:09")
        XCTAssertEqual(c.problems, ["header truncated"])
        let xmp = SampleXMP.xmpPacket([("exif:UserComment", "Screenshot")])
        let p = SamplePNG.insertingChunk("tEXt", Array("Raw profile type xmp".utf8) + [0] + Array(SamplePNG.rawProfile("xmp", Array(xmp.utf8)).utf8), into: png)
        XCTAssertEqual(try read(p)?.evidence.xmpUserComment, "Screenshot")
        // A profile shorter than its length says, or not hex: no EXIF, no crash.
        XCTAssertNil(PNGHeader.rawProfile("\nexif\n   100\nabcdef\n"))
        XCTAssertNil(PNGHeader.rawProfile("\nexif\n   2\nzz\n"))
        XCTAssertEqual(PNGHeader.rawProfile("\nexif\n   2\nab\ncd\n"), [0xAB, 0xCD])
    }

    /// Damaged PNGs (random chunks, a cut file, junk where the tail's chunks should be) never
    /// crash or throw: at worst their metadata is missing.
    func testDamagedPNGsNeverThrowOrCrash() throws {
        var rng = SeededGenerator.forTest(0x9A7E)
        func junk(_ n: Int) -> [UInt8] { rng.bytes(n) }
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let tiff = Array(SampleExif.camera("A", "B", "2017:04:01 10:00:00").payload().dropFirst(6))
        let big = SamplePNG.appendingChunk("eXIf", tiff, to: try noisyPNG())
        for _ in 0..<100 {
            let n = Int.random(in: 0...300, using: &rng)
            XCTAssertEqual(try readDamaged(signature + junk(n), rng)?.format, .png, "a PNG by its signature, whatever follows: \(rng)")
            // A chunk header with a random type and length, then junk.
            let length = UInt8.random(in: 0...40, using: &rng)
            try readDamaged(signature + [0, 0, 0, length] + Array("zTXt".utf8) + junk(60), rng)
            // The big file cut anywhere (its damage named when the cut is before its image data
            // ends), or its end overwritten with junk.
            let cut = try readDamaged(Array(big.prefix(Int.random(in: 8...big.count, using: &rng))), rng)
            XCTAssertEqual(cut?.format, .png, "\(rng)")
            let keep = big.count - Int.random(in: 1...600, using: &rng)
            try readDamaged(Array(big.prefix(keep)) + junk(big.count - keep), rng)
        }
        XCTAssertEqual(try read(big)?.evidence.dateTimeOriginal, "2017:04:01 10:00:00")
    }

    func testInflateRefusesBombsAndDamage() {
        let text = Array(repeating: UInt8(ascii: "a"), count: 100_000)
        let packed = SamplePNG.zlibCompressed(text)
        XCTAssertEqual(Zlib.inflate(packed[...], limit: 100_000), .inflated(text))
        XCTAssertEqual(Zlib.inflate(packed[...], limit: 99_999), .overLimit)
        XCTAssertEqual(Zlib.inflate(packed[...], limit: 50_000), .overLimit)
        XCTAssertEqual(Zlib.inflate(packed.dropLast(10), limit: 1 << 20), .damaged)
        XCTAssertEqual(Zlib.inflate([1, 2, 3, 4], limit: 1 << 20), .damaged)
        XCTAssertEqual(Zlib.inflate([], limit: 1 << 20), .damaged)
    }

    func testDamagedFilesNeverThrowOrCrash() throws {
        let jpeg = try SampleJPEG.jpeg(.marker(width: 16, height: 16))
        let corrupt = SampleJPEG.insertingAPP1(Array("Exif\0\0MM\0*\u{7F}\u{FF}\u{FF}\u{FF}garbage".utf8), into: jpeg)
        XCTAssertEqual(try read(corrupt)?.evidence.problems, ["corrupt EXIF"])
        let truncated = Array(SampleJPEG.insertingAPP1(SampleExif.camera("A", "B", "2017:04:01 10:00:00").payload(), into: jpeg).prefix(300))
        let t = try XCTUnwrap(try read(truncated))
        XCTAssertEqual(t.evidence.dateTimeOriginal, "2017:04:01 10:00:00")
        XCTAssertEqual(t.evidence.problems, ["header truncated"])
        XCTAssertNil(try read([]))
        XCTAssertNil(try read(Array("hello".utf8)))
        // Every prefix of a real file, and random junk after a JPEG signature: no crash, no throw.
        let full = SampleJPEG.insertingAPP1(SampleExif.camera("A", "B", "2017:04:01 10:00:00").payload(), into: jpeg)
        for n in stride(from: 0, through: full.count, by: 7) { _ = try read(Array(full.prefix(n))) }
        var rng = SeededGenerator.forTest(0x1FE6)
        for _ in 0..<200 {
            let junk = [0xFF, 0xD8, 0xFF, 0xE1] + rng.bytes(Int.random(in: 0...400, using: &rng))
            XCTAssertEqual(try readDamaged(junk, rng)?.format, .jpeg, "\(rng)")
            XCTAssertNil(try readDamaged(Array("Exif".utf8) + junk, rng), "no signature, no photo: \(rng)")
            let exifJunk = [0xFF, 0xD8, 0xFF, 0xE1, 0x01, 0x00] + Array("Exif\0\0".utf8) + rng.bytes(300)
            XCTAssertFalse(try readDamaged(exifJunk, rng)?.evidence.problems.isEmpty ?? true, "the damage is named: \(rng)")
        }
    }

    func testXMPPropertyForms() {
        let xmp = #"<rdf:Description photoshop:DateCreated="2020-01-02"><exif:UserComment><rdf:Alt><rdf:li xml:lang="x-default">Screenshot</rdf:li></rdf:Alt></exif:UserComment><exif:DateTimeOriginal>2019-01-01T10:00:00</exif:DateTimeOriginal></rdf:Description>"#
        XCTAssertEqual(XMPProperties.value(of: "photoshop:DateCreated", in: xmp), "2020-01-02")
        XCTAssertEqual(XMPProperties.value(of: "exif:UserComment", in: xmp), "Screenshot")
        XCTAssertEqual(XMPProperties.value(of: "exif:DateTimeOriginal", in: xmp), "2019-01-01T10:00:00")
        XCTAssertNil(XMPProperties.value(of: "exif:Missing", in: xmp))
        XCTAssertEqual(XMPProperties.value(of: "a:b", in: #"<x a:b="1 &amp; 2"/>"#), "1 & 2")
        // A language alternative gives its default text, else its first, never all run together.
        func comment(_ items: String) -> String? {
            XMPProperties.value(of: "exif:UserComment", in: "<exif:UserComment><rdf:Alt>\(items)</rdf:Alt></exif:UserComment>")
        }
        XCTAssertEqual(comment(#"<rdf:li xml:lang="fr-FR">Capture d'écran</rdf:li><rdf:li xml:lang="x-default">Screenshot</rdf:li>"#), "Screenshot")
        XCTAssertEqual(comment(#"<rdf:li xml:lang="en-US">Screenshot</rdf:li> <rdf:li xml:lang="de">Bildschirmfoto</rdf:li>"#), "Screenshot")
        XCTAssertEqual(comment(#"<rdf:li xml:lang="x-default"> Screenshot </rdf:li>"#), "Screenshot")
        XCTAssertEqual(comment("<rdf:li>a &amp; b</rdf:li><rdf:li"), "a & b", "an item left open is not read")
        XCTAssertNil(comment(#"<rdf:li xml:lang="x-default"></rdf:li>"#))
        // An attribute is the name standing alone, not the end of a longer name.
        XCTAssertEqual(XMPProperties.value(of: "exif:DateTimeOriginal", in: #"<x myexif:DateTimeOriginal="1" exif:DateTimeOriginal="2"/>"#), "2")
        XCTAssertEqual(XMPProperties.value(of: "exif:DateTimeOriginal", in: "<x\n exif:DateTimeOriginal='3'/>"), "3")
        XCTAssertNil(XMPProperties.value(of: "exif:DateTimeOriginal", in: #"<x myexif:DateTimeOriginal="1"/>"#))
    }
}
