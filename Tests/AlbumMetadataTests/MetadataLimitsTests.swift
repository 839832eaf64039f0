import AlbumCore
@testable import AlbumMetadata
import AlbumSample
import Foundation
import XCTest

/// EXIF over the per-file cap is read as far as the cap: its IFDs (first) give the date, its
/// thumbnail (last) is what is left unread, and a reason is given only when the rules lose
/// something (exiftool reads the same files whole).
final class MetadataLimitsTests: FolderTestCase {
    /// A stand-in for an embedded thumbnail of `count` bytes: SOI, noise, EOI.
    func thumbnail(_ count: Int) -> [UInt8] {
        var g = SystemRandomNumberGenerator()
        return [0xFF, 0xD8] + (0..<(count - 4)).map { _ in UInt8.random(in: 0...0xFE, using: &g) } + [0xFF, 0xD9]
    }

    func read(_ bytes: [UInt8], _ name: String) throws -> (PhotoEvidence, [String: Any]) {
        let path = folder + "/" + name
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let e = try XCTUnwrap(try MetadataReader.read(SourceFile(path: path))).evidence
        return (e, try DeviceDatesTests.exiftool(path))
    }

    /// A phone HEIC whose EXIF item holds a ~190 KB thumbnail: its date, and no problem.
    func testAPhoneHEICWithA190KBExifItemKeepsItsDateAndSaysNothing() throws {
        var exif = SampleExif.camera("samsung", "SM-S918B", ExifTime("2023:06:07 08:09:10", offset: "+02:00"))
        exif.gpsUTC = ("2023:06:07", 6, 9, 10)
        exif.thumbnail = thumbnail(190_000)
        let payload = exif.payload()
        XCTAssertGreaterThan(payload.count, HEIFHeader.largestMetadata)
        let (e, tool) = try read(try SampleHEIF.heif(.marker(width: 64, height: 48), metadata: .init(exif: payload)), "20230607_080910.heic")
        XCTAssertEqual(tool["ExifIFD:DateTimeOriginal"] as? String, "2023:06:07 08:09:10")
        XCTAssertEqual(tool["IFD1:ThumbnailLength"] as? Int, 190_000)
        XCTAssertEqual(e.dateTimeOriginal, "2023:06:07 08:09:10")
        XCTAssertEqual(e.offsetTimeOriginal, "+02:00")
        XCTAssertEqual(e.gpsDateTimeUTC, "2023:06:07 06:09:10")
        XCTAssertTrue(e.hasCameraEvidence)
        XCTAssertEqual(e.problems, [])
    }

    /// When what the cap leaves unread holds an IFD the rules read, the reason says which.
    func testAnExifIFDPastTheCapIsNamed() throws {
        var w = ExifWriter(order: .intel)
        // An unused tag's 140 KB in IFD0 pushes the EXIF IFD, with the date, past the cap.
        w.ifd0 = [0x010F: .ascii("Canon"), 0x02BC: .undefined([UInt8](repeating: 0x20, count: 140_000))]
        w.exif = [0x9003: .ascii("2019:01:02 03:04:05")]
        let (e, tool) = try read(try SampleHEIF.heif(.marker(width: 64, height: 48), metadata: .init(exif: w.payload())), "far.heic")
        XCTAssertEqual(tool["ExifIFD:DateTimeOriginal"] as? String, "2019:01:02 03:04:05")
        XCTAssertEqual(e.make, "Canon")
        XCTAssertNil(e.dateTimeOriginal)
        XCTAssertEqual(e.problems, ["metadata over the 256 KiB cap read only as far as the cap (Exif: Exif IFD unread)"])
    }

    /// An EXIF IFD past libexif's 64 KiB, within the cap: read (the block is made compact first).
    func testAnExifIFDPast64KiBIsRead() throws {
        var w = ExifWriter(order: .motorola)
        w.ifd0 = [0x010F: .ascii("FUJIFILM"), 0x02BC: .undefined([UInt8](repeating: 0x20, count: 90_000))]
        w.exif = [0x9003: .ascii("2017:08:09 10:11:12"), 0x9011: .ascii("+09:00"), 0x829A: .rational(1, 250)]
        w.gps = [0x0007: .rationals([1, 1, 11, 1, 12, 1]), 0x001D: .ascii("2017:08:09")]
        let (e, tool) = try read(try SampleHEIF.heif(.marker(width: 64, height: 48), metadata: .init(exif: w.payload())), "DSCF0001.HIF")
        XCTAssertEqual(tool["ExifIFD:DateTimeOriginal"] as? String, "2017:08:09 10:11:12")
        XCTAssertEqual(e.make, "FUJIFILM")
        XCTAssertEqual(e.dateTimeOriginal, "2017:08:09 10:11:12")
        XCTAssertEqual(e.offsetTimeOriginal, "+09:00")
        XCTAssertEqual(e.gpsDateTimeUTC, "2017:08:09 01:11:12")
        XCTAssertTrue(e.hasExposureData)
        XCTAssertEqual(e.problems, [])
    }

    /// A PNG's `eXIf` chunk over the whole cap: read as far as it, the date kept, nothing said.
    func testAPNGWithAnExifChunkOverTheCapKeepsItsDate() throws {
        var exif = SampleExif.camera("Google", "Pixel 7", "2022:03:04 05:06:07")
        exif.thumbnail = thumbnail(300_000)
        let tiff = Array(exif.payload().dropFirst(6))
        XCTAssertGreaterThan(tiff.count, MetadataLimits.perFile)
        let png = SamplePNG.insertingChunk("eXIf", tiff, into: try SamplePNG.png(.marker(width: 16, height: 16)))
        let (e, tool) = try read(png, "big.png")
        XCTAssertEqual(tool["ExifIFD:DateTimeOriginal"] as? String, "2022:03:04 05:06:07")
        XCTAssertEqual(e.dateTimeOriginal, "2022:03:04 05:06:07")
        XCTAssertEqual(e.problems, [])
    }

    /// A HEIF's XMP item over half the cap: read as far as it; said unless every property the
    /// rules read is in the part read (what follows cannot be known).
    func testAnXMPItemOverTheCapIsReadAsFarAsIt() throws {
        func packet(_ properties: String) -> String {
            #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">"#
                + #"<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:exif="http://ns.adobe.com/exif/1.0/" "#
                + #"xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" "# + properties + "/>"
                + String(repeating: " ", count: 140_000) + "</rdf:RDF></x:xmpmeta>"
        }
        let some = try read(try SampleHEIF.heif(.marker(width: 64, height: 48), metadata: .init(xmp: packet(#"xmp:CreateDate="2016-01-02T03:04:05""#))), "some.heic").0
        XCTAssertEqual(some.xmpCreateDate, "2016-01-02T03:04:05")
        XCTAssertEqual(some.problems, ["metadata over the 256 KiB cap read only as far as the cap (XMP)"])
        let all = #"xmp:CreateDate="2016-01-02T03:04:05" photoshop:DateCreated="2016-01-02" exif:DateTimeOriginal="2016-01-02T03:04:05" exif:UserComment="x""#
        let (e, tool) = try read(try SampleHEIF.heif(.marker(width: 64, height: 48), metadata: .init(xmp: packet(all))), "all.heic")
        XCTAssertEqual(tool["XMP-photoshop:DateCreated"] as? String, "2016:01:02")
        XCTAssertEqual(e.xmpDateCreated, "2016-01-02")
        XCTAssertEqual(e.problems, [])
    }

    func testReachOfACutBlock() {
        var w = ExifWriter(order: .motorola)
        w.ifd0 = [0x0110: .ascii("Model name")]
        w.exif = [0x9003: .ascii("2019:01:02 03:04:05")]
        w.gps = [0x001D: .ascii("2019:01:02")]
        let whole = w.payload()
        XCTAssertEqual(ExifReach.unread(in: whole), [])
        XCTAssertEqual(ExifReach.unread(in: Array(whole.prefix(whole.count - 4))), ["GPSDateStamp"])
        XCTAssertEqual(ExifReach.unread(in: Array(whole.prefix(10))), ["TIFF header"])
        XCTAssertEqual(ExifReach.unread(in: Array(whole.prefix(30))), ["IFD0"])
        // A maker note cut off counts only for Apple's, which holds the Live Photo identifier.
        for (make, lost) in [("Apple", ["MakerNote"]), ("Canon", [])] {
            var m = ExifWriter(order: .intel)
            m.ifd0 = [0x010F: .ascii(make)]
            m.exif = [0x927C: .undefined([UInt8](repeating: 7, count: 64))]
            let block = m.payload()
            XCTAssertEqual(ExifReach.unread(in: Array(block.prefix(block.count - 10))), lost, make)
        }
    }
}
