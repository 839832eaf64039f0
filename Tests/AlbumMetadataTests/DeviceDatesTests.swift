import AlbumCore
@testable import AlbumMetadata
import AlbumSample
import Foundation
import XCTest

/// Stills dated by what their devices write besides EXIF's capture dates (XMP `xmp:CreateDate`,
/// the GPS fix, IFD0 `DateTime`), each checked against exiftool's reading of the same file.
final class DeviceDatesTests: FolderTestCase {
    let rules = CaptureDateRules(now: Timestamp(seconds: 1_796_083_200))  // 2026-12-01T00:00:00Z
    let mtime = Timestamp(seconds: 1_527_854_400)  // 2018-06-01T12:00:00Z

    /// The file written, read, and dated; with exiftool's tags of it (`-j -G1`).
    func dated(_ bytes: [UInt8], _ name: String) throws -> (PhotoEvidence, CaptureDecision, [String: Any]) {
        let path = folder + "/" + name
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let e = try XCTUnwrap(try MetadataReader.read(SourceFile(path: path))).evidence
        return (e, rules.decide(e, fileName: name, fileMtime: mtime), try Self.exiftool(path))
    }

    static func exiftool(_ path: String) throws -> [String: Any] {
        let p = Process(), out = Pipe()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        p.arguments = ["-j", "-G1", "-n", path]
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "exiftool \(path)")
        let list = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        return try XCTUnwrap(list.first)
    }

    /// A headset's HEIC: no EXIF, its date in XMP `xmp:CreateDate` alone.
    func testAHEICWithXMPCreateDateOnlyIsOnThatDay() throws {
        let xmp = #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">"#
            + #"<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:CreateDate="2024-03-04T05:06:07-08:00"/>"#
            + "</rdf:RDF></x:xmpmeta>"
        let (e, d, tool) = try dated(try SampleHEIF.heif(.marker(width: 64, height: 48), metadata: .init(xmp: xmp)), "headset.heic")
        XCTAssertEqual(tool["XMP-xmp:CreateDate"] as? String, "2024:03:04 05:06:07-08:00")
        XCTAssertEqual(e.xmpCreateDate, "2024-03-04T05:06:07-08:00")
        XCTAssertEqual(d.source, .xmpCreateDate)
        XCTAssertEqual(d.time.isoString, "2024-03-04T05:06:07-08:00")
    }

    /// A phone HEIF with IFD0 DateTime and the GPS fix only: the GPS instant on DateTime's day.
    func testAHEIFWithDateTimeAndGPSOnlyIsOnItsLocalDay() throws {
        var w = ExifWriter(order: .motorola)
        w.ifd0 = [0x010F: .ascii("HUAWEI"), 0x0132: .ascii("2023:10:11 23:30:10")]
        w.gps = [0x0000: .bytes([2, 2, 0, 0]), 0x0007: .rationals([4, 1, 30, 1, 9, 1]), 0x001D: .ascii("2023:10:12")]
        let (e, d, tool) = try dated(try SampleHEIF.heif(.marker(width: 64, height: 48), metadata: .init(exif: w.payload())), "IMG_0042.HEIC")
        XCTAssertEqual(tool["IFD0:ModifyDate"] as? String, "2023:10:11 23:30:10")
        XCTAssertEqual(tool["Composite:GPSDateTime"] as? String, "2023:10:12 04:30:09Z")
        XCTAssertEqual(e.dateTime, "2023:10:11 23:30:10")
        XCTAssertEqual(e.gpsDateTimeUTC, "2023:10:12 04:30:09")
        XCTAssertEqual(d.source, .gpsDateTime)
        XCTAssertEqual(d.time.isoString, "2023-10-11T23:30:09-05:00")
    }

    /// A phone HEIF whose only date is its movie box's (`moov`/`mvhd`, exiftool's QuickTime
    /// CreateDate), after its image data.
    func testAHEIFWithAQuickTimeCreateDateOnlyIsDatedByIt() throws {
        let heif = try SampleHEIF.heif(.marker(width: 64, height: 48)) + MovieBoxes.movieBox(created: 3_723_969_600)  // 2022-01-02T12:00:00Z
        let (e, d, tool) = try dated(heif, "IMG_20220102.HEIF")
        XCTAssertEqual(tool["QuickTime:CreateDate"] as? String, "2022:01:02 12:00:00")
        XCTAssertEqual(e.movieCreationTime, 3_723_969_600)
        XCTAssertEqual(d.source, .movieHeader)
        XCTAssertEqual(d.time.local.secondsSinceEpochAsUTC - Int64(try XCTUnwrap(d.time.utcOffsetSeconds)), 1_641_124_800)
        XCTAssertEqual(e.problems, [])
    }

    /// A JPEG with IFD0 DateTime and OffsetTime alone: the weakest written date, not the mtime.
    func testAJPEGWithDateTimeOnlyIsDatedByIt() throws {
        var w = ExifWriter(order: .intel)
        w.ifd0 = [0x0132: .ascii("2021:07:08 09:10:11")]
        w.exif = [0x9010: .ascii("+03:00")]
        let jpeg = SampleJPEG.insertingAPP1(w.payload(), into: try SampleJPEG.jpeg(.marker(width: 16, height: 16)))
        let (e, d, tool) = try dated(jpeg, "scan.jpg")
        XCTAssertEqual(tool["IFD0:ModifyDate"] as? String, "2021:07:08 09:10:11")
        XCTAssertEqual(tool["ExifIFD:OffsetTime"] as? String, "+03:00")
        XCTAssertEqual(e.offsetTime, "+03:00")
        XCTAssertEqual(d.source, .exifDateTime)
        XCTAssertEqual(d.time.isoString, "2021-07-08T09:10:11+03:00")
    }
}
