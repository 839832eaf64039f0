import AlbumCore
@testable import AlbumMetadata
import AlbumSample
import Foundation
import XCTest

/// HEIF images: HEICs written by libheif (AlbumSample's encoder, as a phone writes them), by
/// exiftool, and containers built here box by box for what the writers at hand do not write.
final class HEIFHeaderTests: FolderTestCase {
    func read(_ bytes: [UInt8], name: String = "f.heic") throws -> FileMetadata? {
        let path = folder + "/" + name
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        return try MetadataReader.read(SourceFile(path: path), name: name)
    }

    /// The primary image's `ispe` as exiftool reads it (`ImageSpatialExtent`, `WxH`): what the
    /// encoder wrote, which depends on its version (libheif 1.19 pads to whole coding blocks and
    /// crops with `clap`; 1.15 wrote the image's own size).
    func spatialExtent(_ bytes: [UInt8]) throws -> (width: Int, height: Int) {
        let path = folder + "/extent.heic"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        p.arguments = ["-s3", "-ImageSpatialExtent", path]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        let sides = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "x").compactMap { Int($0) }
        XCTAssertEqual(sides.count, 2, text)
        return (sides.first ?? 0, sides.last ?? 0)
    }

    /// An `ftyp` box with these brands.
    func fileType(_ major: String, _ compatible: [String]) -> [UInt8] {
        box("ftyp", Array(major.utf8) + [0, 0, 0, 0] + compatible.flatMap { Array($0.utf8) })
    }

    func testSniffsHEIFStillImagesNotVideos() throws {
        let heic = try SampleHEIF.heif(.marker(width: 64, height: 48))
        XCTAssertEqual(FormatSniffer.sniff(heic), .heif)
        XCTAssertEqual(FormatSniffer.sniff(fileType("avif", ["mif1", "avif", "miaf"])), .heif)
        XCTAssertEqual(FormatSniffer.sniff(fileType("heix", [])), .heif)  // Canon and Fujifilm `.HIF`
        XCTAssertEqual(FormatSniffer.sniff(fileType("mp41", ["mif1"])), .heif)  // a still-image brand among the compatible
        // Videos: MP4, QuickTime (a Live Photo's MOV), HEVC and AV1 sequences; not sound alone.
        XCTAssertEqual(FormatSniffer.sniff(fileType("isom", ["isom", "iso2", "avc1", "mp41"])), .video)
        XCTAssertEqual(FormatSniffer.sniff(fileType("qt  ", ["qt  "])), .video)
        XCTAssertEqual(FormatSniffer.sniff(fileType("msf1", ["msf1", "hevc"])), .video)
        XCTAssertEqual(FormatSniffer.sniff(fileType("avis", ["avis", "msf1"])), .video)
        XCTAssertNil(FormatSniffer.sniff(fileType("M4A ", ["M4A ", "mp42", "isom"])))
        XCTAssertNil(FormatSniffer.sniff(Array(heic.prefix(8))))  // the brand cut off
    }

    func testDatesCameraAndSizeOfAPhoneHEIC() throws {
        let exif = SampleExif.camera("Apple", "iPhone 15", ExifTime("2024:05:17 14:03:04", subSec: "567", offset: "+02:00"), orientation: 6)
        let xmp = #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">"#
            + #"<rdf:Description xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" photoshop:DateCreated="2024-05-17T14:03:04+02:00"/>"#
            + "</rdf:RDF></x:xmpmeta>"
        let stored = SampleImage.marker(width: 64, height: 48).stored(forOrientation: 6)
        let heic = try SampleHEIF.heif(stored, metadata: .init(exif: exif.payload(), xmp: xmp, orientation: 6))
        let m = try XCTUnwrap(try read(heic))
        XCTAssertEqual(m.format, .heif)
        let e = m.evidence
        XCTAssertEqual(e.dateTimeOriginal, "2024:05:17 14:03:04")
        XCTAssertEqual(e.subSecTimeOriginal, "567")
        XCTAssertEqual(e.offsetTimeOriginal, "+02:00")
        XCTAssertEqual(e.make, "Apple")
        XCTAssertTrue(e.hasCameraEvidence)
        XCTAssertEqual(e.orientation, 6)  // as written; a HEIF's own rotation is what turns it
        XCTAssertEqual(e.xmpDateCreated, "2024-05-17T14:03:04+02:00")
        // The primary image's `ispe`, as the file says it (the index keeps it, no rule reads it).
        let extent = try spatialExtent(heic)
        XCTAssertEqual(e.pixelWidth, extent.width)
        XCTAssertEqual(e.pixelHeight, extent.height)
        XCTAssertEqual(e.problems, [])
    }

    func testAnAVIFsDateIsRead() throws {
        let exif = SampleExif.camera("Google", "Pixel 8", ExifTime("2024:06:01 10:11:12", offset: "+02:00"))
        let m = try XCTUnwrap(try read(try SampleHEIF.heif(.marker(width: 64, height: 48), codec: .av1, metadata: .init(exif: exif.payload())), name: "a.avif"))
        XCTAssertEqual(m.format, .heif)
        XCTAssertEqual(m.evidence.dateTimeOriginal, "2024:06:01 10:11:12")
        XCTAssertEqual(m.evidence.offsetTimeOriginal, "+02:00")
        XCTAssertEqual(m.evidence.pixelWidth, 64)
        XCTAssertEqual(m.evidence.problems, [])
    }

    func testAHEICWithoutMetadataHasItsSizeOnly() throws {
        let heic = try SampleHEIF.heif(.marker(width: 80, height: 40))
        let e = try XCTUnwrap(try read(heic)).evidence
        XCTAssertNil(e.dateTimeOriginal)
        XCTAssertNil(e.make)
        let extent = try spatialExtent(heic)
        XCTAssertEqual(e.pixelWidth, extent.width)
        XCTAssertEqual(e.pixelHeight, extent.height)
        XCTAssertGreaterThanOrEqual(extent.width, 80)
        XCTAssertEqual(e.problems, [])
    }

    /// Read as exiftool (the reference writer) writes HEIC metadata into a file that had none.
    func testMetadataExiftoolWroteIntoAHEIC() throws {
        let path = folder + "/x.heic"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(try SampleHEIF.heif(.marker(width: 64, height: 64)))))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        p.arguments = ["-q", "-overwrite_original", "-DateTimeOriginal=2019:02:03 04:05:06", "-OffsetTimeOriginal=-05:00",
                       "-UserComment=Screenshot", "-XMP-exif:DateTimeOriginal=2019-02-03T04:05:06", path]
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        let e = try XCTUnwrap(try MetadataReader.read(SourceFile(path: path), name: "x.heic")).evidence
        XCTAssertEqual(e.dateTimeOriginal, "2019:02:03 04:05:06")
        XCTAssertEqual(e.offsetTimeOriginal, "-05:00")
        XCTAssertEqual(e.userComment, "Screenshot")
        XCTAssertEqual(e.xmpDateTimeOriginal, "2019-02-03T04:05:06")
        XCTAssertEqual(e.problems, [])
    }

    /// What the writers at hand do not write: the EXIF in `idat` (construction method 1) with
    /// 8-byte offsets, a 64-bit box size, 32-bit item numbers, and a second EXIF item that
    /// describes the thumbnail, not the primary image (the primary's is the one read).
    func testItemsInIdatAnd32BitFields() throws {
        let thumbExif = Self.exifItem(SampleExif.camera("Thumb", "T", "2001:01:01 01:01:01").payload())
        let mainExif = Self.exifItem(SampleExif.camera("Main", "M", "2022:02:02 02:02:02").payload())
        let idat = thumbExif + mainExif
        func infe(_ id: UInt32, _ type: String) -> [UInt8] { fullBox("infe", version: 3, Self.be32(id) + [0, 0] + Array(type.utf8) + [0]) }
        let iinf = fullBox("iinf", version: 1, Self.be32(4) + infe(1, "hvc1") + infe(2, "hvc1") + infe(10, "Exif") + infe(11, "Exif"))
        // iloc v1: offset 8 bytes, length 4, base offset 0, index 0; items 10 and 11 in idat.
        func location(_ id: UInt32, method: UInt16, offset: Int, length: Int) -> [UInt8] {
            Self.be32(id) + Self.be16(method) + [0, 0] + Self.be16(1) + Self.be32(0) + Self.be32(UInt32(offset)) + Self.be32(UInt32(length))
        }
        let iloc = fullBox("iloc", version: 2, [0x84, 0x00] + Self.be32(2)
                           + location(10, method: 1, offset: 0, length: thumbExif.count)
                           + location(11, method: 1, offset: thumbExif.count, length: mainExif.count))
        let cdsc = { (from: UInt32, to: UInt32) in self.box("cdsc", Self.be32(from) + Self.be16(1) + Self.be32(to)) }
        let iref = fullBox("iref", version: 1, cdsc(10, 2) + cdsc(11, 1))
        let pitm = fullBox("pitm", version: 1, Self.be32(1))
        let ispe = fullBox("ispe", version: 0, Self.be32(4032) + Self.be32(3024))
        let ipma = fullBox("ipma", version: 1, Self.be32(1) + Self.be32(1) + [1, 0x81])
        let iprp = box("iprp", box("ipco", ispe) + ipma)
        let meta = fullBox("meta", version: 0, box("hdlr", [UInt8](repeating: 0, count: 8) + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
                           + pitm + iinf + iloc + iref + iprp + box("idat", idat))
        // The meta box with a 64-bit size, as a writer may give any box.
        let wide = [0, 0, 0, 1] + Array("meta".utf8) + Self.be32(0) + Self.be32(UInt32(meta.count + 8)) + meta.dropFirst(8)
        let e = try XCTUnwrap(try read(fileType("heic", ["mif1", "heic"]) + wide)).evidence
        XCTAssertEqual(e.make, "Main")
        XCTAssertEqual(e.dateTimeOriginal, "2022:02:02 02:02:02")
        XCTAssertEqual(e.pixelWidth, 4032)
        XCTAssertEqual(e.pixelHeight, 3024)
        XCTAssertEqual(e.problems, [])
    }

    /// An `iloc` that gives an item extents of any 63-bit length (damage, or a hostile file):
    /// read as far as the file goes, said to be cut short, no overflow.
    func testExtentsOfAnyLengthAreReadAsFarAsTheFileGoes() throws {
        let exif = Self.exifItem(SampleExif.camera("Main", "M", "2022:02:02 02:02:02").payload())
        let iinf = fullBox("iinf", version: 0, Self.be16(2) + fullBox("infe", version: 2, Self.be16(1) + [0, 0] + Array("hvc1".utf8) + [0])
                           + fullBox("infe", version: 2, Self.be16(2) + [0, 0] + Array("Exif".utf8) + [0]))
        let huge: UInt64 = 0x7FFF_FFFF_FFFF_FFFF
        func u64(_ v: UInt64) -> [UInt8] { Self.be32(UInt32(v >> 32)) + Self.be32(UInt32(v & 0xFFFF_FFFF)) }
        // iloc v0: offsets 4 bytes, lengths 8; item 2 has two extents, each "huge".
        let meta = { (exifAt: UInt32) in
            self.fullBox("meta", version: 0, self.fullBox("pitm", version: 0, Self.be16(1)) + iinf
                         + self.fullBox("iloc", version: 0, [0x48, 0x00] + Self.be16(1) + Self.be16(2) + [0, 0] + Self.be16(2)
                                        + Self.be32(exifAt) + u64(huge) + Self.be32(exifAt) + u64(huge)))
        }
        let head = fileType("heic", ["mif1"])
        let exifAt = UInt32(head.count + meta(0).count + 8)
        let file = head + meta(exifAt) + box("mdat", exif)
        let e = try XCTUnwrap(try read(file)).evidence
        XCTAssertEqual(e.make, "Main")
        XCTAssertEqual(e.problems, ["header truncated"])
    }

    /// A file cut short keeps its format and says so; damage anywhere in its boxes never traps.
    func testCutAndDamagedFilesAreReadWithoutAnError() throws {
        let heic = try SampleHEIF.heif(.marker(width: 64, height: 48), metadata: .init(exif: SampleExif.camera("A", "B", "2020:01:02 03:04:05").payload()))
        let metaEnd = try XCTUnwrap((0..<(heic.count - 4)).first { heic[$0..<($0 + 4)].elementsEqual("mdat".utf8) })
        let cut = try XCTUnwrap(try read(Array(heic.prefix(metaEnd / 2))))
        XCTAssertEqual(cut.format, .heif)
        XCTAssertEqual(cut.evidence.problems, ["header truncated", Unrenderable.noImageData], "cut before its items: nothing to decode")
        XCTAssertNil(cut.evidence.dateTimeOriginal)
        var random = SeededGenerator.forTest(0x4E1F)
        for _ in 0..<300 {
            var bytes = heic
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                bytes[Int.random(in: 12..<metaEnd, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            // Either a HEIF (with or without its EXIF) or, were the brand hit, not a photo.
            let fromFile = try read(bytes)
            if let m = fromFile { XCTAssertEqual(m.format, .heif, "\(random)") }
            let fromMemory = bytes.withUnsafeBytes { MetadataReader.read(bytes: $0) }
            XCTAssertEqual(fromFile?.evidence, fromMemory?.evidence, "from a file and from memory alike: \(random)")
        }
    }

    /// A HEIF whose primary image's data `iloc` places past the file's end (cut in its `mdat`)
    /// has nothing to decode, known from its boxes: its thumbnail is not listed. Whole, or cut
    /// after its image data, it has.
    func testAHEIFCutBeforeItsImageDataIsKnownUnrenderable() throws {
        let heic = try SampleHEIF.heif(.marker(width: 64, height: 48), metadata: .init(exif: SampleExif.camera("A", "B", "2020:01:02 03:04:05").payload()))
        let mdat = try XCTUnwrap((0..<(heic.count - 4)).first { heic[$0..<($0 + 4)].elementsEqual("mdat".utf8) }) - 4
        let cut = try XCTUnwrap(try read(Array(heic.prefix(mdat + 8 + 4))))
        XCTAssertEqual(cut.evidence.pixelWidth, 64, "its boxes still read")
        XCTAssertTrue(cut.evidence.problems.contains(Unrenderable.noImageData), "\(cut.evidence.problems)")
        XCTAssertTrue(Unrenderable.any(cut.evidence.problems, format: .heif))
        let whole = try XCTUnwrap(try read(heic))
        XCTAssertEqual(whole.evidence.problems, [])
        XCTAssertFalse(Unrenderable.any(whole.evidence.problems, format: .heif))
        // Trailing bytes after the image data cut off: still whole where it counts.
        let trailed = try XCTUnwrap(try read(heic + [0, 0, 0, 8] + Array("free".utf8)))
        XCTAssertFalse(trailed.evidence.problems.contains(Unrenderable.noImageData))
    }

    /// A HEIF that holds metadata only (an EXIF item, no primary image: what a tool that
    /// strips images leaves) has nothing to decode, known from its boxes; its date is read.
    func testAHEIFWithMetadataOnlyIsKnownUnrenderable() throws {
        let exif = Self.exifItem(SampleExif.camera("Main", "M", "2022:02:02 02:02:02").payload())
        let iinf = fullBox("iinf", version: 0, Self.be16(1) + fullBox("infe", version: 2, Self.be16(10) + [0, 0] + Array("Exif".utf8) + [0]))
        // iloc v1: offset 4 bytes, length 4; item 10 in idat.
        let iloc = fullBox("iloc", version: 1, [0x44, 0x00] + Self.be16(1)
                           + Self.be16(10) + Self.be16(1) + [0, 0] + Self.be16(1) + Self.be32(0) + Self.be32(UInt32(exif.count)))
        let meta = fullBox("meta", version: 0, box("hdlr", [UInt8](repeating: 0, count: 8) + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
                           + iinf + iloc + box("idat", exif))
        let e = try XCTUnwrap(try read(fileType("heic", ["mif1", "heic"]) + meta)).evidence
        XCTAssertEqual(e.dateTimeOriginal, "2022:02:02 02:02:02")
        XCTAssertTrue(e.problems.contains(Unrenderable.noImageData), "\(e.problems)")
        XCTAssertTrue(Unrenderable.any(e.problems, format: .heif))
    }

    // A box: 32-bit size, type, body.
    func box(_ type: String, _ body: [UInt8]) -> [UInt8] { Self.be32(UInt32(8 + body.count)) + Array(type.utf8) + body }
    func fullBox(_ type: String, version: UInt8, _ body: [UInt8]) -> [UInt8] { box(type, [version, 0, 0, 0] + body) }
    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    /// An EXIF item: the offset of the TIFF header (6: after `Exif\0\0`), then the APP1 payload.
    static func exifItem(_ payload: [UInt8]) -> [UInt8] { be32(6) + payload }
}
