import AlbumCore
@testable import AlbumMetadata
import AlbumSample
import XCTest

/// Camera RAWs told by content and dated by albumfs's own readers: DNG and the other TIFF-based
/// ones by IFD0, ORF and RW2 by their magic, RAF through its embedded JPEG, CR3 through its
/// `CMT1`/`CMT2` boxes. (The DNG fixture is also read by exiftool and LibRaw's `raw-identify` in
/// `RawMountTests`.)
final class RawHeaderTests: XCTestCase {
    func read(_ bytes: [UInt8]) -> FileMetadata? { bytes.withUnsafeBytes { MetadataReader.read(bytes: $0) } }

    func testEachRawMagicIsSniffed() {
        let raws: [(String, [UInt8], RawContainer)] = [
            ("ORF", Array("IIRO".utf8) + [8, 0, 0, 0], .orf), ("ORF (IIRS)", Array("IIRS".utf8) + [8, 0, 0, 0], .orf),
            ("ORF (big-endian)", Array("MMOR".utf8) + [0, 0, 0, 8], .orf), ("RW2", Array("IIU".utf8) + [0, 8, 0, 0, 0], .rw2),
            ("RAF", Array("FUJIFILMCCD-RAW 0201".utf8), .raf), ("CR3", [0, 0, 0, 24] + Array("ftypcrx ".utf8) + [0, 0, 0, 1], .cr3),
        ]
        for (name, head, container) in raws {
            XCTAssertEqual(RawContainer.sniff(head), container, name)
            XCTAssertEqual(FormatSniffer.sniff(head), .raw, name)
        }
        // A plain TIFF is sniffed as one (its IFD0 says whether it is a RAW), and near misses are nothing.
        XCTAssertEqual(FormatSniffer.sniff(Array("II*".utf8) + [0, 8, 0, 0, 0]), .tiff)
        XCTAssertNil(RawContainer.sniff(Array("II*".utf8) + [0, 8, 0, 0, 0]))
        XCTAssertNil(FormatSniffer.sniff(Array("IIU".utf8) + [1, 8, 0, 0, 0]))
        XCTAssertNil(FormatSniffer.sniff(Array("FUJIFILMCCD-RAX".utf8)))
        XCTAssertEqual(FormatSniffer.sniff([0, 0, 0, 24] + Array("ftypcrx2".utf8) + [0, 0, 0, 1]), .video, "another brand")
    }

    /// A DNG as a phone writes it: IFD0 a preview, the raw data in a SubIFD; its EXIF read.
    func testADNGIsARawDatedByItsExif() throws {
        for preview: SampleRaw.DNGPreview in [.rgb(.marker(width: 80, height: 60)), .jpeg(.marker(width: 80, height: 60)), .none] {
            let bytes = try SampleRaw.dng(.marker(width: 160, height: 120), preview: preview, orientation: 6, dateTimeOriginal: "2021:07:08 09:10:11")
            XCTAssertEqual(FormatSniffer.sniff(bytes), .tiff)
            let read = try XCTUnwrap(read(bytes), "\(preview)")
            XCTAssertEqual(read.format, .raw, "\(preview)")
            XCTAssertEqual(read.evidence.dateTimeOriginal, "2021:07:08 09:10:11")
            XCTAssertEqual(read.evidence.orientation, 6)
            XCTAssertEqual(read.evidence.make, "albumfs")
            XCTAssertEqual(read.evidence.problems, [])
        }
    }

    /// TIFFs with a RAW's marks in IFD0: Canon's `CR` after the header (CR2), a maker's own
    /// compression (NEF's 34713, ARW's 32767, PEF's 65535), a colour filter array. A TIFF without is a TIFF.
    func testTIFFsWithARawsMarksAreRaws() throws {
        func tiff(_ entries: [UInt16: ExifWriter.Value]) -> [UInt8] {
            var w = ExifWriter(order: .intel)
            w.ifd0 = entries.merging([0x0100: .long(8), 0x0101: .long(8)]) { a, _ in a }
            w.exif = [0x9003: .ascii("2020:01:02 03:04:05")]
            return w.tiff()
        }
        for compression: UInt16 in [34713, 32767, 65535] {
            XCTAssertEqual(read(tiff([0x0103: .short(compression)]))?.format, .raw, "compression \(compression)")
        }
        XCTAssertEqual(read(tiff([0x0106: .short(32803)]))?.format, .raw, "CFA")
        var cr2 = tiff([0x0103: .short(6)])
        cr2.replaceSubrange(8..<10, with: Array("CR".utf8))
        XCTAssertEqual(read(cr2)?.format, .raw, "CR2")
        let plain = try XCTUnwrap(read(tiff([0x0103: .short(5)])))
        XCTAssertEqual(plain.format, .tiff)
        XCTAssertEqual(plain.evidence.dateTimeOriginal, "2020:01:02 03:04:05")
    }

    /// A RAW's large private data at the end of the file, pointed at from IFD0 (Adobe's
    /// `DNGPrivateData`): left out of the block libexif reads, the date read all the same.
    func testAValueFarFromTheDirectoriesIsLeftOutAndTheDateKept() throws {
        var bytes = try SampleRaw.dng(.marker(width: 32, height: 24), preview: .rgb(.marker(width: 16, height: 12)),
                                     dateTimeOriginal: "2021:07:08 09:10:11")
        let far = MetadataLimits.perFile + 4096
        func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }
        let entry = try XCTUnwrap((0..<(bytes.count - 12)).first { bytes[$0] == 0x12 && bytes[$0 + 1] == 0xC6 }, "DNGVersion's entry")
        // (IFD0's DNGVersion entry becomes a BYTE value of `far` bytes at the file's end.)
        let at = bytes.count
        bytes.replaceSubrange(entry..<(entry + 12), with: [0x34, 0xC6, 1, 0] + le32(far) + le32(at))
        bytes += [UInt8](repeating: 7, count: far)
        let read = try XCTUnwrap(read(bytes))
        XCTAssertEqual(read.evidence.dateTimeOriginal, "2021:07:08 09:10:11")
        XCTAssertEqual(read.format, .raw, "a SubIFD and a CFA still mark it")
    }

    /// ORF and RW2 are TIFF under another magic number: read as TIFF, the magic put back for libexif.
    func testORFAndRW2AreReadAsTheTIFFTheyAre() throws {
        var w = ExifWriter(order: .intel)
        w.ifd0 = [0x010F: .ascii("OLYMPUS"), 0x0112: .short(8)]
        w.exif = [0x9003: .ascii("2019:02:03 04:05:06")]
        for magic in ["IIRO", "IIU\0"] {
            var bytes = w.tiff()
            bytes.replaceSubrange(0..<4, with: Array(magic.utf8))
            let read = try XCTUnwrap(read(bytes), magic)
            XCTAssertEqual(read.format, .raw, magic)
            XCTAssertEqual(read.evidence.dateTimeOriginal, "2019:02:03 04:05:06", magic)
            XCTAssertEqual(read.evidence.orientation, 8, magic)
        }
    }

    func testARAFIsDatedByItsEmbeddedJPEGsExif() throws {
        let exif = SampleExif.camera("FUJIFILM", "X-T3", "2018:09:10 11:12:13").payload()
        let bytes = try SampleRaw.raf(preview: .marker(width: 64, height: 48), exif: exif)
        let read = try XCTUnwrap(read(bytes))
        XCTAssertEqual(read.format, .raw)
        XCTAssertEqual(read.evidence.dateTimeOriginal, "2018:09:10 11:12:13")
        XCTAssertEqual(read.evidence.make, "FUJIFILM")
        XCTAssertEqual(read.evidence.problems, [])
    }

    /// CR3: `CMT1` (IFD0: Make, Orientation) and `CMT2` (the EXIF IFD: DateTimeOriginal) joined.
    func testACR3IsDatedByItsCanonBoxes() throws {
        let bytes = SampleRaw.cr3(ifd0: [0x010F: .ascii("Canon"), 0x0110: .ascii("Canon EOS R5"), 0x0112: .short(3)],
                                 exif: [0x9003: .ascii("2022:03:04 05:06:07"), 0x9291: .ascii("42")])
        let read = try XCTUnwrap(read(bytes))
        XCTAssertEqual(read.format, .raw)
        XCTAssertEqual(read.evidence.dateTimeOriginal, "2022:03:04 05:06:07")
        XCTAssertEqual(read.evidence.subSecTimeOriginal, "42")
        XCTAssertEqual(read.evidence.make, "Canon")
        XCTAssertEqual(read.evidence.model, "Canon EOS R5")
        XCTAssertEqual(read.evidence.orientation, 3)
        XCTAssertEqual(read.evidence.problems, [])
    }

    /// A CR3 without `DateTimeOriginal` but with GPS (`CMT4`): its GPS date and time read, as
    /// the GPS IFD of the block.
    func testACR3sGPSBoxIsRead() throws {
        let bytes = SampleRaw.cr3(ifd0: [0x010F: .ascii("Canon"), 0x0132: .ascii("2022:03:04 14:06:07")], exif: [0x9291: .ascii("42")],
                                 gps: [0x0000: .bytes([2, 3, 0, 0]), 0x0001: .ascii("N"), 0x0002: .rationals([48, 1, 51, 1, 2_940, 100]),
                                       0x0007: .rationals([5, 1, 6, 1, 7, 1]), 0x001D: .ascii("2022:03:04")])
        let read = try XCTUnwrap(read(bytes))
        XCTAssertEqual(read.evidence.gpsDateTimeUTC, "2022:03:04 05:06:07")
        XCTAssertEqual(read.evidence.dateTime, "2022:03:04 14:06:07")
        XCTAssertEqual(read.evidence.subSecTimeOriginal, "42")
        XCTAssertEqual(read.evidence.problems, [])
    }

    /// Every RAW cut anywhere reads without a crash; cut in its metadata, it says so.
    func testCutRawsReadSafely() throws {
        let exif = SampleExif.camera("FUJIFILM", "X-T3", "2018:09:10 11:12:13").payload()
        let files = [
            try SampleRaw.dng(.marker(width: 32, height: 24), preview: .rgb(.marker(width: 16, height: 12)), dateTimeOriginal: "2021:07:08 09:10:11"),
            try SampleRaw.raf(preview: .marker(width: 16, height: 16), exif: exif),
            SampleRaw.cr3(ifd0: [0x010F: .ascii("Canon")], exif: [0x9003: .ascii("2022:03:04 05:06:07")]),
        ]
        for bytes in files {
            for cut in stride(from: 0, to: bytes.count, by: 7) { _ = read(Array(bytes[..<cut])) }
        }
        let cr3 = files[2]
        let cut = try XCTUnwrap(read(Array(cr3[..<(cr3.count - 100)])))
        XCTAssertEqual(cut.format, .raw)
        XCTAssertTrue(cut.evidence.problems.contains(Unrenderable.headerTruncated), "\(cut.evidence.problems)")
    }
}
