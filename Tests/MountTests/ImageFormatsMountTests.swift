import AlbumSample
import Foundation
import XCTest

/// The formats beyond JPEG, PNG, HEIF and video, each recognised by its bytes: listed in
/// `by-date/` and the flat views, named in `user.albumfs.format`, dated by what it carries, and
/// thumbnailed upright and colour-true at exactly the box's size.
final class ImageFormatsMountTests: XCTestCase {
    /// WebP as Android and messaging apps write it: a camera's lossy file with EXIF, a lossless
    /// screenshot dated by its name, an XMP-dated export, and an animation whose first frame (the
    /// marker) is its thumbnail, not the second (blue); one named `.jpg` is still a WebP; a big
    /// one is shrunk as it is decoded.
    func testWebPFilesAreListedDatedAndThumbnailed() throws {
        let source = makeTempFolder("webp")
        defer { try? FileManager.default.removeItem(atPath: source) }
        let marker = SampleImage.marker(width: 320, height: 240)
        let exif = Array(SampleExif.camera("Google", "Pixel 7", "2021:06:15 10:20:30").payload().dropFirst(6))
        let xmp = Encoders.xmpPacket([("photoshop:DateCreated", "2019-02-03T04:05:06+01:00")])
        let files: [(name: String, bytes: [UInt8], day: String, source: String, view: String)] = [
            ("PXL_phone.webp", try Encoders.webp(marker, exifTIFF: exif), "2021/2021-06/2021-06-15", "exif:DateTimeOriginal", "non-screenshots"),
            ("Screenshot_20220304-101112.webp", try Encoders.webp(marker, lossless: true), "2022/2022-03/2022-03-04", "filename", "screenshots"),
            ("export.webp", try Encoders.webp(marker, xmp: xmp), "2019/2019-02/2019-02-03", "xmp:photoshop:DateCreated", "non-screenshots"),
            ("sticker.webp", try Encoders.animatedWebP([marker, .solid(width: 320, height: 240, 0, 0, 255)]),
             "2020/2020-01/2020-01-02", "mtime", "non-screenshots"),
            ("named-wrong.jpg", try Encoders.webp(marker, exifTIFF: exif), "2021/2021-06/2021-06-15", "exif:DateTimeOriginal", "non-screenshots"),
            // Shrunk by libwebp's scaler as it is decoded (by 2).
            ("big.webp", try Encoders.webp(.marker(width: 1200, height: 1000), exifTIFF: exif), "2021/2021-06/2021-06-15",
             "exif:DateTimeOriginal", "non-screenshots"),
        ]
        for f in files {
            let path = source + "/" + f.name
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(f.bytes)), f.name)
            // What an outside reader makes of the fixture: a WebP, animated where it should be.
            let info = shell("webpinfo -quiet '\(path)'")
            XCTAssertEqual(info.status, 0, "\(f.name): \(info.stdout)\(info.stderr)")
        }
        XCTAssertTrue(shell("webpinfo '\(source)/sticker.webp'").stdout.contains("Animation: 1"))
        XCTAssertTrue(shell("webpinfo '\(source)/PXL_phone.webp'").stdout.contains("EXIF: 1"))
        // 2020-01-02 12:00 UTC: that day in any zone within 12 hours.
        var times = [timespec(tv_sec: 1_577_966_400, tv_nsec: 0), timespec(tv_sec: 1_577_966_400, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, source + "/sticker.webp", &times, 0), 0)

        let mount = try Mount(source: source)
        for f in files {
            let shown = f.name == "named-wrong.jpg" ? "named-wrong.webp" : f.name
            let dated = mount.path("by-date/\(f.day)/\(shown)")
            XCTAssertNotNil(statOf(dated), "\(f.name) in by-date/\(f.day): \(readdirNames(mount.path("by-date")) ?? [])")
            XCTAssertEqual(try readFile(dated).get(), f.bytes, f.name)
            XCTAssertEqual(xattr(dated, "user.albumfs.format"), "webp", f.name)
            XCTAssertEqual(xattr(dated, "user.albumfs.date_source"), f.source, f.name)
            XCTAssertNil(xattr(dated, "user.albumfs.problems"), f.name)
            XCTAssertNotNil(statOf(mount.path("\(f.view)/\(shown)")), "\(f.name) in \(f.view)")
            let stem = shown.split(separator: ".").dropLast().joined(separator: ".")
            let thumbnail = mount.path("thumbnails/200x200/\(stem).jpg")
            XCTAssertEqual(statOf(thumbnail)?.st_size, 30_000, f.name)
            try assertMarkerUpright(thumbnail, f.name)
        }
        XCTAssertEqual(daemonStatus(mount.mountpoint)["images_not_shown"], "0")
        mount.finish()
    }

    /// GIFs as downloads and messaging apps hold them: a screenshot dated by its name, an
    /// interlaced animation whose first frame (the marker) is its thumbnail, dated by mtime (a
    /// GIF carries no date), and one named `.png`.
    func testGIFFilesAreListedDatedAndThumbnailed() throws {
        let source = makeTempFolder("gif")
        defer { try? FileManager.default.removeItem(atPath: source) }
        let marker = SampleImage.marker(width: 320, height: 240)
        let blue = SampleImage.solid(width: 320, height: 240, 0, 0, 255)
        let files: [(name: String, bytes: [UInt8], day: String, source: String, view: String)] = [
            ("Screenshot_20220304-101112.gif", try Encoders.gif([marker]), "2022/2022-03/2022-03-04", "filename", "screenshots"),
            ("party.gif", try Encoders.gif([marker, blue], interlaced: true), "2020/2020-01/2020-01-02", "mtime", "non-screenshots"),
            ("IMG-20230405-WA0002.png", try Encoders.gif([marker]), "2023/2023-04/2023-04-05", "filename", "non-screenshots"),
        ]
        for f in files {
            let path = source + "/" + f.name
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(f.bytes)), f.name)
            // What an outside reader makes of the fixture: a GIF of the marker's size, its frames counted.
            let identify = shell("/usr/bin/identify -format '%m %wx%h\\n' '\(path)'")
            XCTAssertEqual(identify.status, 0, "\(f.name): \(identify.stderr)")
            XCTAssertEqual(identify.stdout, String(repeating: "GIF 320x240\n", count: f.name == "party.gif" ? 2 : 1), f.name)
        }
        var times = [timespec(tv_sec: 1_577_966_400, tv_nsec: 0), timespec(tv_sec: 1_577_966_400, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, source + "/party.gif", &times, 0), 0)

        let mount = try Mount(source: source)
        for f in files {
            let shown = f.name.hasSuffix(".png") ? f.name.replacingOccurrences(of: ".png", with: ".gif") : f.name
            let dated = mount.path("by-date/\(f.day)/\(shown)")
            XCTAssertNotNil(statOf(dated), "\(f.name) in by-date/\(f.day): \(readdirNames(mount.path("by-date")) ?? [])")
            XCTAssertEqual(try readFile(dated).get(), f.bytes, f.name)
            XCTAssertEqual(xattr(dated, "user.albumfs.format"), "gif", f.name)
            XCTAssertEqual(xattr(dated, "user.albumfs.date_source"), f.source, f.name)
            XCTAssertNil(xattr(dated, "user.albumfs.problems"), f.name)
            XCTAssertNotNil(statOf(mount.path("\(f.view)/\(shown)")), "\(f.name) in \(f.view)")
            let stem = shown.split(separator: ".").dropLast().joined(separator: ".")
            let thumbnail = mount.path("thumbnails/200x200/\(stem).jpg")
            XCTAssertEqual(statOf(thumbnail)?.st_size, 30_000, f.name)
            try assertMarkerUpright(thumbnail, f.name)
        }
        mount.finish()
    }

    /// TIFFs as scanners and editors write them: IFD0 `DateTime` (LZW), a big-endian file turned
    /// by its Orientation whose `DateTimeOriginal` exiftool added, a scan past the metadata cap
    /// with its directory at the end; and a DNG, which is no TIFF photo but a camera RAW.
    func testTIFFFilesAreListedDatedAndThumbnailed() throws {
        let source = makeTempFolder("tiff")
        defer { try? FileManager.default.removeItem(atPath: source) }
        let marker = SampleImage.marker(width: 320, height: 240)
        var files: [(name: String, bytes: [UInt8], day: String, source: String)] = [
            ("scan 1.tif", try Encoders.tiff(marker, dateTime: "2016:03:04 05:06:07"), "2016/2016-03/2016-03-04", "exif:DateTime"),
            ("photo.tiff", try Encoders.tiff(marker.stored(forOrientation: 6), orientation: 6, bigEndian: true), "2017/2017-05/2017-05-06",
             "exif:DateTimeOriginal"),
            ("big scan.tif", try Encoders.tiff(.marker(width: 700, height: 500), compression: .none, dateTime: "2015:01:02 03:04:05"),
             "2015/2015-01/2015-01-02", "exif:DateTime"),
        ]
        for f in files {
            XCTAssertTrue(FileManager.default.createFile(atPath: source + "/" + f.name, contents: Data(f.bytes)), f.name)
        }
        let tagged = shell("exiftool -q -overwrite_original -DateTimeOriginal='2017:05:06 07:08:09' '\(source)/photo.tiff'")
        XCTAssertEqual(tagged.status, 0, tagged.stderr)
        files[1].bytes = try XCTUnwrap(FileManager.default.contents(atPath: source + "/photo.tiff")).map { $0 }
        for f in files {
            // What an outside reader makes of the fixture: a TIFF of the marker's size.
            let info = shell("tiffinfo '\(source)/\(f.name)'")
            XCTAssertEqual(info.status, 0, "\(f.name): \(info.stderr)")
            XCTAssertTrue(info.stdout.contains("Image Width: \(f.name.hasPrefix("big") ? 700 : f.name == "photo.tiff" ? 240 : 320)"), info.stdout)
        }
        let dng: [UInt8] = Array("II".utf8) + [42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0xC6, 1, 0, 4, 0, 0, 0, 1, 4, 0, 0, 0, 0, 0, 0]
        XCTAssertTrue(FileManager.default.createFile(atPath: source + "/DNG_0001.dng", contents: Data(dng)))

        let mount = try Mount(source: source)
        for f in files {
            let dated = mount.path("by-date/\(f.day)/\(f.name)")
            XCTAssertNotNil(statOf(dated), "\(f.name) in by-date/\(f.day): \(readdirNames(mount.path("by-date")) ?? [])")
            XCTAssertEqual(try readFile(dated).get(), f.bytes, f.name)
            XCTAssertEqual(xattr(dated, "user.albumfs.format"), "tiff", f.name)
            XCTAssertEqual(xattr(dated, "user.albumfs.date_source"), f.source, f.name)
            XCTAssertNil(xattr(dated, "user.albumfs.problems"), f.name)
            XCTAssertNotNil(statOf(mount.path("non-screenshots/\(f.name)")), f.name)
            let stem = f.name.split(separator: ".").dropLast().joined(separator: ".")
            let thumbnail = mount.path("thumbnails/200x200/\(stem).jpg")
            XCTAssertEqual(statOf(thumbnail)?.st_size, 30_000, f.name)
            try assertMarkerUpright(thumbnail, f.name)
        }
        let notShown = (try? String(contentsOfFile: mount.path(".albumfs/not-shown"), encoding: .utf8)) ?? ""
        XCTAssertFalse(notShown.contains("DNG_0001.dng"), notShown)
        XCTAssertEqual(xattr(mount.path("non-screenshots/DNG_0001.dng"), "user.albumfs.format"), "raw")
        mount.finish(allowing: ["DNG_0001.dng"])
    }
}
