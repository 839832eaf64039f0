import AlbumCore
@testable import AlbumMetadata
import AlbumSample
import Foundation
import XCTest

/// WebP headers from the project's own encoder (libwebp's, the container by hand), each also
/// checked by libwebp's `webpinfo` in the mount test.
final class WebPHeaderTests: XCTestCase {
    func header(_ bytes: [UInt8]) -> WebPHeader {
        WebPHeader(size: Int64(bytes.count)) { offset, count in
            let start = Int(min(offset, Int64(bytes.count)))
            return Array(bytes[start..<min(bytes.count, start + count)])
        }
    }

    func testSizesOfLossyLosslessExtendedAndAnimated() throws {
        let image = SampleImage.marker(width: 123, height: 45)
        let xmp = SampleXMP.xmpPacket([("xmp:CreateDate", "2024-03-04T05:06:07")])
        for (what, bytes, animated) in [("lossy", try SampleWebP.webp(image), false),
                                        ("lossless", try SampleWebP.webp(image, lossless: true), false),
                                        ("extended", try SampleWebP.webp(image, xmp: xmp), false),
                                        ("animated", try SampleWebP.animatedWebP([image, image]), true)] {
            XCTAssertEqual(FormatSniffer.sniff(bytes), .webp, what)
            let h = header(bytes)
            XCTAssertEqual(h.width, 123, what)
            XCTAssertEqual(h.height, 45, what)
            XCTAssertEqual(h.animated, animated, what)
            XCTAssertFalse(h.truncated, what)
        }
        XCTAssertNil(FormatSniffer.sniff(Array("RIFF\0\0\0\0WAVEfmt ".utf8)), "a RIFF that is no WebP")
    }

    func testExifAndXMPChunksGiveTheDates() throws {
        let exif = Array(SampleExif.camera("Google", "Pixel 7", "2021:06:15 10:20:30").payload().dropFirst(6))
        let xmp = SampleXMP.xmpPacket([("photoshop:DateCreated", "2019-02-03T04:05:06+01:00")])
        let bytes = try SampleWebP.webp(.marker(width: 16, height: 16), exifTIFF: exif, xmp: xmp)
        let h = header(bytes)
        XCTAssertEqual(h.exif.map { Array($0.prefix(6)) }, Array("Exif\0\0".utf8), "prefixed for libexif")
        XCTAssertEqual(h.xmp, xmp)
        let read = try XCTUnwrap(bytes.withUnsafeBytes { MetadataReader.read(bytes: $0) })
        XCTAssertEqual(read.format, .webp)
        XCTAssertEqual(read.evidence.dateTimeOriginal, "2021:06:15 10:20:30")
        XCTAssertEqual(read.evidence.make, "Google")
        XCTAssertEqual(read.evidence.pixelWidth, 16)
        XCTAssertEqual(read.evidence.problems, [])
        // A writer that kept the JPEG's `Exif\0\0` before the TIFF data: read alike.
        let prefixed = try SampleWebP.webp(.marker(width: 16, height: 16), exifTIFF: Array("Exif\0\0".utf8) + exif)
        XCTAssertEqual(header(prefixed).exif, h.exif)
    }

    func testACutFileIsTruncatedAndEveryCutReadsSafely() throws {
        let exif = Array(SampleExif.camera("Google", "Pixel 7", "2021:06:15 10:20:30").payload().dropFirst(6))
        let bytes = try SampleWebP.webp(.marker(width: 64, height: 48), exifTIFF: exif)
        XCTAssertTrue(header(Array(bytes[..<(bytes.count - 10)])).truncated, "its EXIF chunk runs past the end")
        for cut in stride(from: 12, to: bytes.count, by: 7) {
            let h = header(Array(bytes[..<cut]))
            XCTAssertTrue(h.truncated || h.exif == nil, "cut at \(cut)")
        }
        // A chunk claiming 4 GiB ends the walk, nothing allocated for it.
        var huge = bytes
        huge.replaceSubrange(16..<20, with: [0xFF, 0xFF, 0xFF, 0xFF])
        XCTAssertTrue(header(huge).truncated)
    }
}
