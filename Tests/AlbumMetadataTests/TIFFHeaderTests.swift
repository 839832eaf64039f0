import AlbumCore
@testable import AlbumMetadata
import AlbumSample
import XCTest

/// TIFF headers from the project's own encoder (libtiff's), also read by `tiffinfo` in the mount
/// test: IFD0 is the EXIF block, wherever the writer put it.
final class TIFFHeaderTests: XCTestCase {
    func read(_ bytes: [UInt8]) -> FileMetadata? { bytes.withUnsafeBytes { MetadataReader.read(bytes: $0) } }

    func testSizeDateAndOrientationInBothByteOrders() throws {
        for bigEndian in [false, true] {
            let bytes = try SampleTIFF.tiff(.marker(width: 123, height: 45), orientation: 6, dateTime: "2019:08:07 06:05:04", bigEndian: bigEndian)
            XCTAssertEqual(FormatSniffer.sniff(bytes), .tiff)
            let e = try XCTUnwrap(read(bytes)).evidence
            XCTAssertEqual(e.pixelWidth, 123)
            XCTAssertEqual(e.pixelHeight, 45)
            XCTAssertEqual(e.dateTime, "2019:08:07 06:05:04")
            XCTAssertEqual(e.orientation, 6)
            XCTAssertEqual(e.problems, [])
        }
    }

    /// A scan larger than the metadata cap, its directory after the image data (libtiff puts it
    /// there): the directory and its values are read, moved before libexif sees them.
    func testADirectoryAfterMegabytesOfImageDataIsRead() throws {
        let bytes = try SampleTIFF.tiff(.marker(width: 700, height: 500), compression: .none, dateTime: "2018:01:02 03:04:05")
        XCTAssertGreaterThan(bytes.count, MetadataLimits.perFile)
        let ifd0 = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        XCTAssertGreaterThan(ifd0, MetadataLimits.perFile, "the directory is past the cap")
        let e = try XCTUnwrap(read(bytes)).evidence
        XCTAssertEqual(e.dateTime, "2018:01:02 03:04:05")
        XCTAssertEqual(e.pixelWidth, 700)
        XCTAssertEqual(e.problems, [])
    }

    /// A DNG (its IFD0 holds `DNGVersion`) is a camera RAW: not a TIFF photo (`RawHeaderTests`).
    func testACameraRawIsNoTIFFPhoto() throws {
        let dng: [UInt8] = Array("II".utf8) + [42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0xC6, 1, 0, 4, 0, 0, 0, 1, 4, 0, 0, 0, 0, 0, 0]
        XCTAssertEqual(FormatSniffer.sniff(dng), .tiff)
        XCTAssertTrue(TIFFHeader(size: Int64(dng.count)) { Array(dng[Int($0)..<min(dng.count, Int($0) + $1)]) }.looksRaw)
        XCTAssertEqual(read(dng)?.format, .raw)
        let plain = try SampleTIFF.tiff(.marker(width: 8, height: 8))
        XCTAssertFalse(TIFFHeader(size: Int64(plain.count)) { Array(plain[Int($0)..<min(plain.count, Int($0) + $1)]) }.looksRaw)
    }

    func testCutFilesReadSafely() throws {
        let bytes = try SampleTIFF.tiff(.marker(width: 64, height: 48), dateTime: "2018:01:02 03:04:05")
        for cut in stride(from: 0, to: bytes.count, by: 5) {
            let part = Array(bytes[..<cut])
            _ = read(part)
        }
        let cut = try XCTUnwrap(read(Array(bytes[..<(bytes.count - 20)])))
        XCTAssertEqual(cut.format, .tiff)
        XCTAssertFalse(cut.evidence.problems.isEmpty, "its directory is cut")
    }
}
