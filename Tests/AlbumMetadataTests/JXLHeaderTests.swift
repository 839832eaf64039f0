import AlbumCore
@testable import AlbumMetadata
import AlbumSample
import Foundation
import XCTest

/// JPEG XL headers from the project's own encoder (libjxl's), each kind also checked by libjxl's
/// `jxlinfo` and exiftool in the mount test.
final class JXLHeaderTests: XCTestCase {
    func header(_ bytes: [UInt8]) -> JXLHeader {
        JXLHeader(size: Int64(bytes.count)) { offset, count in
            let start = Int(min(offset, Int64(bytes.count)))
            return Array(bytes[start..<min(bytes.count, start + count)])
        }
    }

    let exif = SampleExif.camera("Google", "Pixel 7", "2021:06:15 10:20:30").payload().dropFirst(6).map { $0 }

    /// Every way the size header codes a size: small multiples of 8, a fixed aspect ratio, each
    /// length of the explicit sides; bare codestreams and containers alike.
    func testSizesOfBareAndContainerFiles() throws {
        for (w, h) in [(64, 48), (123, 45), (1200, 1000), (160, 90), (300, 1000), (8, 256), (9000, 3)] {
            let image = SampleImage.marker(width: w, height: h)
            for (what, bytes) in [("bare", try SampleJXL.jxl(image, lossless: true)), ("container", try SampleJXL.jxl(image, exifTIFF: exif))] {
                XCTAssertEqual(FormatSniffer.sniff(bytes), .jxl, "\(what) \(w)x\(h)")
                let found = header(bytes)
                XCTAssertEqual(found.width, w, "\(what) \(w)x\(h)")
                XCTAssertEqual(found.height, h, "\(what) \(w)x\(h)")
                XCTAssertEqual(found.orientation, 1)
                XCTAssertFalse(found.truncated, "\(what) \(w)x\(h)")
            }
        }
        XCTAssertEqual(Array(try SampleJXL.jxl(.marker(width: 8, height: 8)).prefix(2)), [0xFF, 0x0A], "no boxes: the bare codestream")
    }

    /// The codestream's orientation turns the size: the decoder gives the image upright.
    func testTheCodestreamOrientationGivesTheUprightSize() throws {
        for orientation in 1...8 {
            let found = header(try SampleJXL.jxl(.marker(width: 40, height: 24), orientation: orientation))
            XCTAssertEqual(found.orientation, orientation)
            XCTAssertEqual(found.width, orientation > 4 ? 24 : 40, "orientation \(orientation)")
            XCTAssertEqual(found.height, orientation > 4 ? 40 : 24, "orientation \(orientation)")
        }
    }

    func testExifAndXMLBoxesGiveTheDates() throws {
        let xmp = SampleXMP.xmpPacket([("photoshop:DateCreated", "2019-02-03T04:05:06+01:00")])
        let bytes = try SampleJXL.jxl(.marker(width: 16, height: 16), exifTIFF: exif, xmp: xmp)
        XCTAssertTrue(bytes.starts(with: JXLHeader.containerSignature))
        let found = header(bytes)
        XCTAssertEqual(found.exif, Array("Exif\0\0".utf8) + exif, "the TIFF data behind its offset, prefixed for libexif")
        XCTAssertEqual(found.xmp, xmp)
        let read = try XCTUnwrap(bytes.withUnsafeBytes { MetadataReader.read(bytes: $0) })
        XCTAssertEqual(read.format, .jxl)
        XCTAssertEqual(read.evidence.dateTimeOriginal, "2021:06:15 10:20:30")
        XCTAssertEqual(read.evidence.xmpDateCreated, "2019-02-03T04:05:06+01:00")
        XCTAssertEqual(read.evidence.make, "Google")
        XCTAssertEqual(read.evidence.pixelWidth, 16)
        XCTAssertEqual(read.evidence.problems, [])
    }

    /// An `Exif` box whose offset skips bytes before the TIFF header (as the format allows).
    func testTheExifBoxOffsetIsHonoured() throws {
        var bytes = try SampleJXL.jxl(.marker(width: 16, height: 16), exifTIFF: [0xAA, 0xBB] + exif)
        let at = try XCTUnwrap(boxPayload("Exif", in: bytes))
        bytes.replaceSubrange(at..<(at + 4), with: [0, 0, 0, 2])
        XCTAssertEqual(header(bytes).exif, Array("Exif\0\0".utf8) + exif)
        bytes.replaceSubrange(at..<(at + 4), with: [0x7F, 0, 0, 0])
        XCTAssertNil(header(bytes).exif, "an offset past the box")
    }

    /// Compressed boxes are not inflated in the daemon: said, and the date falls back.
    func testBrotliCompressedBoxesAreNamedNotRead() throws {
        let xmp = SampleXMP.xmpPacket([("photoshop:DateCreated", "2019-02-03T04:05:06+01:00")])
        let bytes = try SampleJXL.jxl(.marker(width: 16, height: 16), exifTIFF: exif, xmp: xmp, compressBoxes: true)
        XCTAssertNotNil(boxPayload("brob", in: bytes))
        let found = header(bytes)
        XCTAssertNil(found.exif)
        XCTAssertNil(found.xmp)
        XCTAssertEqual(found.compressed, ["Exif", "xml "])
        XCTAssertEqual(found.width, 16)
        let read = try XCTUnwrap(bytes.withUnsafeBytes { MetadataReader.read(bytes: $0) })
        XCTAssertNil(read.evidence.dateTimeOriginal)
        XCTAssertEqual(read.evidence.problems, ["EXIF stored Brotli-compressed (brob) not read", "XMP stored Brotli-compressed (brob) not read"])
    }

    func testACutFileIsTruncatedAndEveryCutReadsSafely() throws {
        let bytes = try SampleJXL.jxl(.marker(width: 64, height: 48), exifTIFF: exif)
        let codestream = try XCTUnwrap(boxPayload("jxlc", in: bytes))
        let cutInCodestream = header(Array(bytes[..<(codestream + 10)]))
        XCTAssertTrue(cutInCodestream.truncated, "its codestream runs past the end")
        XCTAssertEqual(cutInCodestream.width, 64, "the size from what is there")
        for cut in 0..<bytes.count {
            // (Cut after the codestream's box, only metadata is lost.)
            let found = header(Array(bytes[..<cut]))
            XCTAssertTrue(found.truncated || found.width == 64, "cut at \(cut)")
        }
        XCTAssertTrue(header([0xFF, 0x0A]).truncated, "a codestream's signature alone")
        XCTAssertTrue(header(JXLHeader.containerSignature).truncated, "a container without a codestream")
        let read = try XCTUnwrap(Array(bytes[..<(codestream + 10)]).withUnsafeBytes { MetadataReader.read(bytes: $0) })
        XCTAssertTrue(Unrenderable.any(read.evidence.problems, format: .jxl), "nothing to render: \(read.evidence.problems)")
    }

    /// Lengths that lie: 4 GiB, a 64-bit length, one shorter than a header; nothing is allocated for them.
    func testHostileBoxLengthsEndTheWalk() throws {
        let bytes = try SampleJXL.jxl(.marker(width: 64, height: 48), exifTIFF: exif)
        let first = JXLHeader.containerSignature.count
        for length: [UInt8] in [[0xFF, 0xFF, 0xFF, 0xFF], [0, 0, 0, 1], [0, 0, 0, 4]] {
            var hostile = bytes
            hostile.replaceSubrange(first..<(first + 4), with: length)
            let found = header(hostile)
            XCTAssertTrue(found.truncated, "\(length)")
            XCTAssertNil(found.exif, "\(length)")
        }
        // A 64-bit length of 2^62, then a box running to the end of the file (length 0).
        var large = JXLHeader.containerSignature + [0, 0, 0, 1] + Array("jxlc".utf8) + [0x40, 0, 0, 0, 0, 0, 0, 0]
        XCTAssertTrue(header(large).truncated)
        let codestream = try SampleJXL.jxl(.marker(width: 200, height: 100), lossless: true)
        large = JXLHeader.containerSignature + [0, 0, 0, 0] + Array("jxlc".utf8) + codestream
        XCTAssertEqual(header(large).width, 200)
        XCTAssertFalse(header(large).truncated)
    }

    /// The codestream split into `jxlp` parts, its size header across two of them.
    func testACodestreamInPartsIsRead() throws {
        let codestream = try SampleJXL.jxl(.marker(width: 300, height: 1000), lossless: true)
        func part(_ index: UInt8, _ bytes: ArraySlice<UInt8>) -> [UInt8] {
            let length = bytes.count + 12
            return [24, 16, 8, 0].map { UInt8(length >> $0 & 0xFF) } + Array("jxlp".utf8) + [index, 0, 0, 0] + bytes
        }
        let file = JXLHeader.containerSignature + part(0, codestream[..<3]) + part(0, codestream[3..<200]) + part(0x80, codestream[200...])
        XCTAssertEqual(header(file).width, 300)
        XCTAssertEqual(header(file).height, 1000)
        XCTAssertFalse(header(file).truncated)
        let unfinished = JXLHeader.containerSignature + part(0, codestream[..<3]) + part(0, codestream[3..<200])
        XCTAssertTrue(header(unfinished).truncated, "no last part")
    }

    /// Where the payload of the first box of `type` starts.
    func boxPayload(_ type: String, in bytes: [UInt8]) -> Int? {
        var at = 0
        while at + 8 <= bytes.count {
            let length = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            if bytes[(at + 4)..<(at + 8)].elementsEqual(type.utf8) { return at + 8 }
            guard length >= 8 else { return nil }
            at += length
        }
        return nil
    }
}
