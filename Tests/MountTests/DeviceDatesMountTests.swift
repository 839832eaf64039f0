import AlbumSample
import Foundation
import XCTest

/// Files that real devices write, dated by what they carry (XMP CreateDate, the GPS fix, IFD0
/// DateTime, a HEIF's movie header, EXIF past the cap or over two segments, a segment length two bytes short): each on
/// its day in `by-date/`, saying its date source, none on the day it was copied.
final class DeviceDatesMountTests: XCTestCase {
    /// A stand-in for an embedded thumbnail of `count` bytes.
    static func thumbnail(_ count: Int) -> [UInt8] {
        [0xFF, 0xD8] + (0..<(count - 4)).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) % 0xFF } + [0xFF, 0xD9]
    }

    static func files() throws -> [(name: String, bytes: [UInt8], day: String, source: String)] {
        let jpeg = try SampleJPEG.jpeg(.marker(width: 32, height: 24))
        let xmp = #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">"#
            + #"<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:CreateDate="2024-03-04T05:06:07-08:00"/>"#
            + "</rdf:RDF></x:xmpmeta>"
        var gps = ExifWriter(order: .motorola)
        gps.ifd0 = [0x010F: .ascii("HUAWEI"), 0x0132: .ascii("2023:10:11 23:30:10")]
        gps.gps = [0x0000: .bytes([2, 2, 0, 0]), 0x0007: .rationals([4, 1, 30, 1, 9, 1]), 0x001D: .ascii("2023:10:12")]
        var modified = ExifWriter(order: .intel)
        modified.ifd0 = [0x0132: .ascii("2021:07:08 09:10:11")]
        modified.exif = [0x9010: .ascii("+03:00")]
        var big = SampleExif.camera("samsung", "SM-S918B", ExifTime("2023:06:07 08:09:10", offset: "+02:00"))
        big.thumbnail = thumbnail(190_000)
        var split = ExifWriter(order: .motorola)
        split.ifd0 = [0x010F: .ascii("SONY"), 0x02BC: .undefined([UInt8](repeating: 0x20, count: 70_000))]
        split.exif = [0x9003: .ascii("2018:09:10 11:12:13")]
        let splitPayload = split.payload()
        var short = SampleJPEG.insertingAPP1(SampleXMP.xmpAPP1(SampleXMP.xmpPacket([("photoshop:DateCreated", "2020-05-06T07:08:09+02:00")])), into: jpeg)
        let length = Int(short[4]) << 8 | Int(short[5]) - 2
        short[4] = UInt8(length >> 8); short[5] = UInt8(length & 0xFF)
        return [
            ("headset.heic", try SampleHEIF.heif(.marker(width: 64, height: 48), metadata: .init(xmp: xmp)), "2024/2024-03/2024-03-04", "xmp:xmp:CreateDate"),
            ("IMG_0042.HEIC", try SampleHEIF.heif(.marker(width: 64, height: 48), metadata: .init(exif: gps.payload())), "2023/2023-10/2023-10-11", "exif:GPSDateTime"),
            ("scan.jpg", SampleJPEG.insertingAPP1(modified.payload(), into: jpeg), "2021/2021-07/2021-07-08", "exif:DateTime"),
            ("big-exif.heic", try SampleHEIF.heif(.marker(width: 64, height: 48), metadata: .init(exif: big.payload())), "2023/2023-06/2023-06-07", "exif:DateTimeOriginal"),
            ("split.jpg", SampleJPEG.insertingAPP1(Array(splitPayload[..<65_000]),
                                                 into: SampleJPEG.insertingAPP1(Array("Exif\0\0".utf8) + splitPayload[65_000...], into: jpeg)),
             "2018/2018-09/2018-09-10", "exif:DateTimeOriginal"),
            ("short-xmp.jpg", short, "2020/2020-05/2020-05-06", "xmp:photoshop:DateCreated"),
            // 2022-01-02T12:00:00Z: that day in the daemon's zone, whichever it is.
            ("movie.heif", try SampleHEIF.heif(.marker(width: 64, height: 48)) + MovieBoxes.movieBox(created: 3_723_969_600),
             "2022/2022-01/2022-01-02", "quicktime:mvhd"),
        ]
    }

    func testEachDevicesFileIsOnItsDayWithItsDateSource() throws {
        let source = makeTempFolder("src")
        defer { try? FileManager.default.removeItem(atPath: source) }
        let files = try Self.files()
        for f in files { XCTAssertTrue(FileManager.default.createFile(atPath: source + "/" + f.name, contents: Data(f.bytes)), f.name) }
        let mount = try Mount(source: source)
        for f in files {
            let path = mount.path("by-date/\(f.day)/\(f.name)")
            XCTAssertNotNil(statOf(path), "\(f.name) in by-date/\(f.day): \(readdirNames(mount.path("by-date")) ?? [])")
            XCTAssertEqual(xattr(path, "user.albumfs.date_source"), f.source, f.name)
            XCTAssertNil(xattr(path, "user.albumfs.problems"), f.name)
        }
        XCTAssertEqual(xattr(mount.path("by-date/2023/2023-10/2023-10-11/IMG_0042.HEIC"), "user.albumfs.capture_time"), "2023-10-11T23:30:09-05:00")
        // The JPEG with a short segment length keeps its thumbnail entry, and it decodes.
        let thumbnail = mount.path("thumbnails/200x200/short-xmp.jpg")
        XCTAssertEqual(statOf(thumbnail)?.st_size, 30_000)
        let bytes = try readFile(thumbnail).get()
        XCTAssertEqual(bytes.count, 30_000)
        XCTAssertEqual(DecodedImage(jpeg: bytes)?.width, 200)
        mount.finish()
    }
}
