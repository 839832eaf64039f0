import AlbumCore
@testable import AlbumMetadata
import AlbumSample
import Foundation
import XCTest

/// JPEG headers that libjpeg and exiftool read with at most a warning are read as they read them:
/// a segment length a few bytes short, an empty IFD0, EXIF split over two APP1 segments.
final class JPEGHeaderTests: FolderTestCase {
    func written(_ bytes: [UInt8], _ name: String) throws -> (PhotoEvidence, [String: Any], String) {
        let path = folder + "/" + name
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let e = try XCTUnwrap(try MetadataReader.read(SourceFile(path: path))).evidence
        return (e, try DeviceDatesTests.exiftool(path), path)
    }

    /// djpeg's exit status and what it said on stderr.
    func djpeg(_ path: String) throws -> (Int32, String) {
        let p = Process(), err = Pipe()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/djpeg")
        p.arguments = ["-outfile", "/dev/null", path]
        p.standardError = err
        try p.run()
        let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, said)
    }

    func testAnXMPSegmentTwoBytesShortIsReadAndThePhotoRenderable() throws {
        let packet = SampleXMP.xmpPacket([("photoshop:DateCreated", "2020-05-06T07:08:09+02:00")])
        var jpeg = SampleJPEG.insertingAPP1(SampleXMP.xmpAPP1(packet), into: try SampleJPEG.jpeg(.marker(width: 32, height: 24)))
        let length = Int(jpeg[4]) << 8 | Int(jpeg[5]) - 2
        jpeg[4] = UInt8(length >> 8); jpeg[5] = UInt8(length & 0xFF)
        let (e, tool, path) = try written(jpeg, "short-xmp.jpg")
        let (status, said) = try djpeg(path)
        XCTAssertEqual(status, 2, "decoded with a warning: " + said)
        XCTAssertTrue(said.contains("extraneous bytes before marker"), said)
        XCTAssertEqual(tool["XMP-photoshop:DateCreated"] as? String, "2020:05:06 07:08:09+02:00")
        XCTAssertEqual(tool["File:ImageWidth"] as? Int, 32)
        XCTAssertEqual(e.xmpDateCreated, "2020-05-06T07:08:09+02:00")
        XCTAssertEqual(e.pixelWidth, 32)
        XCTAssertEqual(e.pixelHeight, 24)
        XCTAssertEqual(e.problems, [])
        XCTAssertFalse(Unrenderable.any(e.problems, format: .jpeg))
    }

    func testAnEmptyIFD0IsNoCorruptEXIF() throws {
        let empty = Array("Exif\0\0".utf8) + [0x49, 0x49, 42, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        let (e, tool, _) = try written(SampleJPEG.insertingAPP1(empty, into: try SampleJPEG.jpeg(.marker(width: 16, height: 16))), "empty-ifd0.jpg")
        XCTAssertNil(tool["Error"])
        XCTAssertEqual(tool["IFD0:ExifByteOrder"] as? String ?? tool["File:ExifByteOrder"] as? String, "II")
        XCTAssertEqual(e.problems, [])
        // A TIFF header that points nowhere is still corrupt.
        let corrupt = Array("Exif\0\0".utf8) + [0x49, 0x49, 42, 0, 0xFF, 0xFF, 0, 0, 0, 0]
        XCTAssertEqual(try written(SampleJPEG.insertingAPP1(corrupt, into: try SampleJPEG.jpeg(.marker(width: 16, height: 16))), "bad.jpg").0.problems,
                       ["corrupt EXIF"])
    }

    func testEXIFSplitOverTwoSegmentsIsReadWhole() throws {
        var w = ExifWriter(order: .motorola)
        // An unused tag's 70 KB in IFD0: the EXIF IFD, with the date, lies in the second segment.
        w.ifd0 = [0x010F: .ascii("SONY"), 0x02BC: .undefined([UInt8](repeating: 0x20, count: 70_000))]
        w.exif = [0x9003: .ascii("2018:09:10 11:12:13")]
        let payload = w.payload()
        let first = Array(payload[..<65_000]), rest = Array("Exif\0\0".utf8) + payload[65_000...]
        let jpeg = SampleJPEG.insertingAPP1(first, into: SampleJPEG.insertingAPP1(rest, into: try SampleJPEG.jpeg(.marker(width: 16, height: 16))))
        let (e, tool, _) = try written(jpeg, "split.jpg")
        XCTAssertEqual(tool["ExifIFD:DateTimeOriginal"] as? String, "2018:09:10 11:12:13", "\(tool)")
        XCTAssertEqual(e.make, "SONY")
        XCTAssertEqual(e.dateTimeOriginal, "2018:09:10 11:12:13")
        XCTAssertEqual(e.problems, [])
    }
}
