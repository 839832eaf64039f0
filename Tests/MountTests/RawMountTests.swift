import AlbumSample
import Foundation
import Glibc
import XCTest

/// Camera RAWs as a mount shows them: dated by their EXIF (read by albumfs's own readers), named
/// `raw` in `user.albumfs.format`, thumbnailed by LibRaw in the render workers from their
/// embedded preview (or a half-size decode where there is none), upright and colour-true.
final class RawMountTests: XCTestCase {
    /// Fixtures from the project's own DNG writer, each read by LibRaw's `raw-identify` and by
    /// exiftool: a phone's DNG with a JPEG preview turned by Orientation 6, one with an RGB
    /// preview, one with no preview at all; and a DNG cut in half, which costs its thumbnail only.
    func testDNGsAreListedDatedAndThumbnailedUpright() throws {
        let source = makeTempFolder("raw")
        defer { try? FileManager.default.removeItem(atPath: source) }
        let scene = SampleImage.marker(width: 640, height: 480), small = SampleImage.marker(width: 320, height: 240)
        let files: [(name: String, bytes: [UInt8], day: String)] = [
            ("PXL_turned.dng", try SampleRaw.dng(scene.stored(forOrientation: 6), preview: .jpeg(small.stored(forOrientation: 6)), orientation: 6,
                                                dateTimeOriginal: "2021:07:08 09:10:11"), "2021/2021-07/2021-07-08"),
            ("rgb-preview.dng", try SampleRaw.dng(scene, preview: .rgb(small), dateTimeOriginal: "2020:05:06 07:08:09"), "2020/2020-05/2020-05-06"),
            ("no-preview.DNG", try SampleRaw.dng(scene, preview: .none, dateTimeOriginal: "2019:03:04 05:06:07"), "2019/2019-03/2019-03-04"),
        ]
        for f in files {
            let path = source + "/" + f.name
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(f.bytes)), f.name)
            // What outside readers make of the fixture: LibRaw's own tool knows the camera, exiftool the date.
            let identify = shell("raw-identify '\(path)'")
            XCTAssertEqual(identify.status, 0, "\(f.name): \(identify.stdout)\(identify.stderr)")
            XCTAssertTrue(identify.stdout.contains("is a albumfs Sample DNG image"), identify.stdout)
            let exif = shell("exiftool -s3 -FileType -DateTimeOriginal -Orientation# '\(path)'")
            let expected = f.day.split(separator: "/").last!.replacingOccurrences(of: "-", with: ":")
            XCTAssertTrue(exif.stdout.hasPrefix("DNG\n\(expected) "), "\(f.name): \(exif.stdout)")
        }
        // Cut in its preview, and in its raw data.
        for (name, length) in [("cut-early.dng", 2_000), ("cut.dng", files[0].bytes.count / 2)] {
            XCTAssertTrue(FileManager.default.createFile(atPath: source + "/" + name, contents: Data(files[0].bytes.prefix(length))))
        }

        let mount = try Mount(source: source, options: ["-o", "thumbnail_ahead=0"])
        for f in files {
            let dated = mount.path("by-date/\(f.day)/\(f.name)")
            XCTAssertNotNil(statOf(dated), "\(f.name) in by-date/\(f.day): \(readdirNames(mount.path("by-date")) ?? [])")
            XCTAssertEqual(try readFile(dated).get(), f.bytes, f.name)
            XCTAssertEqual(xattr(dated, "user.albumfs.format"), "raw", f.name)
            XCTAssertEqual(xattr(dated, "user.albumfs.date_source"), "exif:DateTimeOriginal", f.name)
            XCTAssertNil(xattr(dated, "user.albumfs.problems"), f.name)
            XCTAssertNotNil(statOf(mount.path("non-screenshots/\(f.name)")), f.name)
            let thumbnail = mount.path("thumbnails/200x200/\(f.name.split(separator: ".")[0]).jpg")
            XCTAssertEqual(statOf(thumbnail)?.st_size, 30_000, f.name)
            let image = try XCTUnwrap(DecodedImage(jpeg: try readFile(thumbnail).get()), f.name)
            XCTAssertEqual(image.width, 200, f.name)
            XCTAssertEqual(image.height, 200, f.name)
            if f.name == "no-preview.DNG" {
                // A half-size decode of the sensor, through LibRaw's colour pipeline: the marker's
                // red corner stays where it is, and the reddest.
                let red = image.mean(x: 3..<20, y: 5..<40), other = image.mean(x: 180..<197, y: 160..<195)
                XCTAssertGreaterThan(red.0 - red.1, 80, "top-left is red: \(red)")
                XCTAssertLessThan(other.0 - other.1, 40, "bottom-right is not: \(other)")
            } else {
                try assertMarkerUpright(thumbnail, f.name)
                // Colour-true: the marker's middle is (100, 128, 100) in the photo; the crop keeps it in the middle.
                assertColour(image.mean(x: 95..<105, y: 95..<105), (100, 128, 100), tolerance: 12, f.name)
            }
        }
        // The cut DNGs: listed, dated by their EXIF (the directories come first); each thumbnail
        // what LibRaw can make of what is there, or EIO; no worker ends, the mount goes on.
        for name in ["cut-early", "cut"] {
            XCTAssertEqual(xattr(mount.path("by-date/2021/2021-07/2021-07-08/\(name).dng"), "user.albumfs.format"), "raw", name)
            switch readFile(mount.path("thumbnails/200x200/\(name).jpg")) {
            case .success(let bytes): XCTAssertEqual(DecodedImage(jpeg: bytes)?.width, 200, name)
            case .failure(let error): XCTAssertEqual(error.code, EIO, name)
            }
        }
        XCTAssertEqual(daemonStatus(mount.mountpoint)["render_worker_restarts"], "0")
        XCTAssertEqual(statOf(mount.path("thumbnails/200x200/rgb-preview.jpg"))?.st_size, 30_000, "the mount goes on")
        mount.finish(allowing: ["cut-early.dng", "cut.dng"])
    }

    /// A camera's RAW+JPEG shot: the two side by side in `by-date/`, linked both ways
    /// (`user.albumfs.raw` on the JPEG, `user.albumfs.raw_of` on the RAW), the JPEG alone in
    /// `non-screenshots/`. A lone RAW, and a RAW whose same-named JPEG was taken an hour later,
    /// are photos of their own there.
    func testARawAndItsJPEGArePairedBothWaysAndTheJPEGAloneIsFlat() throws {
        let source = makeTempFolder("rawpair")
        defer { try? FileManager.default.removeItem(atPath: source) }
        XCTAssertEqual(mkdir(source + "/DCIM", 0o755), 0)
        let scene = SampleImage.marker(width: 320, height: 240)
        func jpeg(_ date: String) throws -> [UInt8] {
            SampleJPEG.insertingAPP1(SampleExif.camera("albumfs", "Sample DNG", ExifTime(date)).payload(), into: try SampleJPEG.jpeg(scene))
        }
        let files: [(String, [UInt8])] = [
            ("DSC_0001.dng", try SampleRaw.dng(scene, preview: .rgb(scene), dateTimeOriginal: "2022:08:09 10:11:12")),
            ("DSC_0001.JPG", try jpeg("2022:08:09 10:11:13")),
            ("DSC_0002.dng", try SampleRaw.dng(scene, preview: .rgb(scene), dateTimeOriginal: "2022:08:09 10:12:00")),
            ("DSC_0003.dng", try SampleRaw.dng(scene, preview: .rgb(scene), dateTimeOriginal: "2022:08:09 10:13:00")),
            ("DSC_0003.jpg", try jpeg("2022:08:09 11:13:00")),
        ]
        for (name, bytes) in files {
            XCTAssertTrue(FileManager.default.createFile(atPath: source + "/DCIM/" + name, contents: Data(bytes)), name)
        }
        XCTAssertEqual(shell("exiftool -s3 -DateTimeOriginal '\(source)/DCIM/DSC_0001.JPG'").stdout, "2022:08:09 10:11:13\n")

        let mount = try Mount(source: source)
        let day = "by-date/2022/2022-08/2022-08-09"
        XCTAssertEqual(readdirNames(mount.path(day)).map(Set.init), Set(files.map(\.0)))
        XCTAssertEqual(xattr(mount.path("\(day)/DSC_0001.JPG"), "user.albumfs.raw"), "\(day)/DSC_0001.dng")
        XCTAssertEqual(xattr(mount.path("\(day)/DSC_0001.dng"), "user.albumfs.raw_of"), "\(day)/DSC_0001.JPG")
        XCTAssertEqual(xattr(mount.path("non-screenshots/DSC_0001.dng"), "user.albumfs.raw_of"), nil, "not in the flat view")
        for name in ["DSC_0002.dng", "DSC_0003.dng", "DSC_0003.jpg"] {
            XCTAssertNil(xattr(mount.path("\(day)/\(name)"), "user.albumfs.raw"), name)
            XCTAssertNil(xattr(mount.path("\(day)/\(name)"), "user.albumfs.raw_of"), name)
        }
        XCTAssertEqual(readdirNames(mount.path("non-screenshots")).map(Set.init), ["DSC_0001.JPG", "DSC_0002.dng", "DSC_0003.dng", "DSC_0003.jpg"])
        XCTAssertEqual(readdirNames(mount.path("screenshots")), [])
        // Each of the pair has its thumbnail (one name tagged: both are DSC_0001.jpg).
        XCTAssertEqual(readdirNames(mount.path("thumbnails/200x200"))?.filter { $0.hasPrefix("DSC_0001") }.count, 2)
        // media-types/raw/ lists every RAW, newest first, one with its JPEG too; the JPEGs are no RAW.
        XCTAssertEqual(readdirNames(mount.path("media-types/raw")), ["DSC_0003.dng", "DSC_0002.dng", "DSC_0001.dng"])
        XCTAssertEqual(statOf(mount.path("media-types/raw/DSC_0001.dng"))?.st_ino, statOf(mount.path("\(day)/DSC_0001.dng"))?.st_ino)
        XCTAssertEqual(xattr(mount.path("media-types/raw/DSC_0001.dng"), "user.albumfs.kinds"), "raw (camera RAW by content)")
        XCTAssertNil(xattr(mount.path("\(day)/DSC_0001.JPG"), "user.albumfs.kinds"))
        mount.finish()
    }

    /// The other containers, as the scan reads them (their sensor data left out: LibRaw is not
    /// asked here): a Canon CR3 (`CMT1`, `CMT2`), a Fujifilm RAF (its embedded JPEG's EXIF), an
    /// Olympus ORF and a Panasonic RW2 (TIFF under their own magic). exiftool reads each
    /// fixture's date where albumfs does; the mount lists each on that day as a `raw`.
    func testCR3RAFORFAndRW2AreDatedByTheirOwnMetadata() throws {
        let source = makeTempFolder("rawkinds")
        defer { try? FileManager.default.removeItem(atPath: source) }
        func tiff(_ magic: String, _ date: String) -> [UInt8] {
            var w = ExifWriter(order: .intel)
            w.ifd0 = [0x010F: .ascii("OLYMPUS"), 0x0110: .ascii("E-M1")]
            w.exif = [0x9003: .ascii(date)]
            var bytes = w.tiff()
            bytes.replaceSubrange(0..<4, with: Array(magic.utf8))
            return bytes
        }
        let files: [(name: String, bytes: [UInt8], date: String)] = [
            ("IMG_0001.CR3", SampleRaw.cr3(ifd0: [0x010F: .ascii("Canon"), 0x0110: .ascii("Canon EOS R5")],
                                          exif: [0x9003: .ascii("2022:03:04 05:06:07")],
                                          gps: [0x0000: .bytes([2, 3, 0, 0]), 0x001D: .ascii("2022:03:04"), 0x0007: .rationals([4, 1, 6, 1, 7, 1])]),
             "2022:03:04 05:06:07"),
            ("DSCF0001.RAF", try SampleRaw.raf(preview: .marker(width: 160, height: 120),
                                              exif: SampleExif.camera("FUJIFILM", "X-T3", "2018:09:10 11:12:13").payload()), "2018:09:10 11:12:13"),
            ("P0001.ORF", tiff("IIRO", "2019:02:03 04:05:06"), "2019:02:03 04:05:06"),
            ("P0002.RW2", tiff("IIU\0", "2017:06:07 08:09:10"), "2017:06:07 08:09:10"),
        ]
        for f in files {
            XCTAssertTrue(FileManager.default.createFile(atPath: source + "/" + f.name, contents: Data(f.bytes)), f.name)
            let exif = shell("exiftool -s3 -DateTimeOriginal '\(source)/\(f.name)'")
            XCTAssertEqual(exif.stdout, f.date + "\n", "\(f.name): \(exif.stderr)")
        }
        // The CR3's CMT4 where exiftool looks for its GPS IFD.
        XCTAssertEqual(shell("exiftool -s3 -GPSDateStamp -GPSTimeStamp '\(source)/IMG_0001.CR3'").stdout, "2022:03:04\n04:06:07\n")
        let mount = try Mount(source: source, options: ["-o", "thumbnail_ahead=0"])
        for f in files {
            let d = f.date.prefix(10).split(separator: ":")
            let dated = mount.path("by-date/\(d[0])/\(d[0])-\(d[1])/\(d[0])-\(d[1])-\(d[2])/\(f.name)")
            XCTAssertEqual(xattr(dated, "user.albumfs.format"), "raw", f.name)
            XCTAssertEqual(xattr(dated, "user.albumfs.date_source"), "exif:DateTimeOriginal", f.name)
            XCTAssertNil(xattr(dated, "user.albumfs.problems"), f.name)
            XCTAssertEqual(try readFile(dated).get(), f.bytes, f.name)
            XCTAssertNotNil(statOf(mount.path("non-screenshots/\(f.name)")), f.name)
        }
        XCTAssertEqual(daemonStatus(mount.mountpoint)["images_not_shown"], "0")
        mount.finish()
    }

    /// A camera's card copied file by file: the RAW first, shown alone in `non-screenshots/`; its
    /// JPEG copied in while mounted pairs them, and the RAW leaves the flat view; the JPEG
    /// deleted parts them again.
    func testAJPEGCopiedInBesideAShownRawPairsThemLive() throws {
        let source = makeTempFolder("rawlive")
        defer { try? FileManager.default.removeItem(atPath: source) }
        let scene = SampleImage.marker(width: 320, height: 240)
        let raw = try SampleRaw.dng(scene, preview: .rgb(scene), dateTimeOriginal: "2022:08:09 10:11:12")
        XCTAssertTrue(FileManager.default.createFile(atPath: source + "/DSC_0001.NEF", contents: Data(raw)))
        let mount = try Mount(source: source, options: ["-o", "thumbnail_ahead=0"])
        XCTAssertEqual(readdirNames(mount.path("non-screenshots")), ["DSC_0001.NEF"])
        let jpeg = SampleJPEG.insertingAPP1(SampleExif.camera("albumfs", "Sample DNG", "2022:08:09 10:11:12").payload(), into: try SampleJPEG.jpeg(scene))
        XCTAssertTrue(FileManager.default.createFile(atPath: source + "/DSC_0001.JPG", contents: Data(jpeg)))
        XCTAssertTrue(eventually(10) { readdirNames(mount.path("non-screenshots")) == ["DSC_0001.JPG"] },
                      "\(readdirNames(mount.path("non-screenshots")) ?? [])")
        let day = "by-date/2022/2022-08/2022-08-09"
        XCTAssertEqual(readdirNames(mount.path(day)).map(Set.init), ["DSC_0001.JPG", "DSC_0001.NEF"])
        XCTAssertEqual(xattr(mount.path("\(day)/DSC_0001.NEF"), "user.albumfs.raw_of"), "\(day)/DSC_0001.JPG")
        XCTAssertEqual(unlink(source + "/DSC_0001.JPG"), 0)
        XCTAssertTrue(eventually(10) { readdirNames(mount.path("non-screenshots")) == ["DSC_0001.NEF"] },
                      "\(readdirNames(mount.path("non-screenshots")) ?? [])")
        XCTAssertNil(xattr(mount.path("\(day)/DSC_0001.NEF"), "user.albumfs.raw_of"))
        mount.finish()
    }
}
