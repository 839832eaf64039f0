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
        let xmp = SampleXMP.xmpPacket([("photoshop:DateCreated", "2019-02-03T04:05:06+01:00")])
        let files: [(name: String, bytes: [UInt8], day: String, source: String, view: String)] = [
            ("PXL_phone.webp", try SampleWebP.webp(marker, exifTIFF: exif), "2021/2021-06/2021-06-15", "exif:DateTimeOriginal", "non-screenshots"),
            ("Screenshot_20220304-101112.webp", try SampleWebP.webp(marker, lossless: true), "2022/2022-03/2022-03-04", "filename", "screenshots"),
            ("export.webp", try SampleWebP.webp(marker, xmp: xmp), "2019/2019-02/2019-02-03", "xmp:photoshop:DateCreated", "non-screenshots"),
            ("sticker.webp", try SampleWebP.animatedWebP([marker, .solid(width: 320, height: 240, 0, 0, 255)]),
             "2020/2020-01/2020-01-02", "mtime", "non-screenshots"),
            ("named-wrong.jpg", try SampleWebP.webp(marker, exifTIFF: exif), "2021/2021-06/2021-06-15", "exif:DateTimeOriginal", "non-screenshots"),
            // Shrunk by libwebp's scaler as it is decoded (by 2).
            ("big.webp", try SampleWebP.webp(.marker(width: 1200, height: 1000), exifTIFF: exif), "2021/2021-06/2021-06-15",
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
            ("Screenshot_20220304-101112.gif", try SampleGIF.gif([marker]), "2022/2022-03/2022-03-04", "filename", "screenshots"),
            ("party.gif", try SampleGIF.gif([marker, blue], interlaced: true), "2020/2020-01/2020-01-02", "mtime", "non-screenshots"),
            ("IMG-20230405-WA0002.png", try SampleGIF.gif([marker]), "2023/2023-04/2023-04-05", "filename", "non-screenshots"),
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
            ("scan 1.tif", try SampleTIFF.tiff(marker, dateTime: "2016:03:04 05:06:07"), "2016/2016-03/2016-03-04", "exif:DateTime"),
            ("photo.tiff", try SampleTIFF.tiff(marker.stored(forOrientation: 6), orientation: 6, bigEndian: true), "2017/2017-05/2017-05-06",
             "exif:DateTimeOriginal"),
            ("big scan.tif", try SampleTIFF.tiff(.marker(width: 700, height: 500), compression: .none, dateTime: "2015:01:02 03:04:05"),
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

    /// JPEG XL as cameras, editors and browsers write it: a container with an `Exif` box, one
    /// with an `xml ` box, a bare lossless codestream dated by its name, one turned by its
    /// codestream's orientation (libjxl turns it upright; nothing turns it again), one whose
    /// `Exif` is Brotli-compressed (named as a problem, dated by mtime), one named `.png`. Then
    /// files cut short: a container's codestream (no thumbnail listed) and a bare codestream
    /// (its header whole: the decode fails in a worker, EIO), the mount unharmed.
    func testJPEGXLFilesAreListedDatedAndThumbnailed() throws {
        let source = makeTempFolder("jxl")
        defer { try? FileManager.default.removeItem(atPath: source) }
        let marker = SampleImage.marker(width: 320, height: 240)
        let exif = Array(SampleExif.camera("Google", "Pixel 7", "2021:06:15 10:20:30").payload().dropFirst(6))
        let xmp = SampleXMP.xmpPacket([("photoshop:DateCreated", "2019-02-03T04:05:06+01:00")])
        let turnedExif = Array(SampleExif.camera("Canon", "EOS R6", "2018:07:08 09:10:11", orientation: 6).payload().dropFirst(6))
        let files: [(name: String, bytes: [UInt8], day: String, source: String, view: String)] = [
            ("PXL_camera.jxl", try SampleJXL.jxl(marker, exifTIFF: exif), "2021/2021-06/2021-06-15", "exif:DateTimeOriginal", "non-screenshots"),
            ("export.jxl", try SampleJXL.jxl(marker, xmp: xmp), "2019/2019-02/2019-02-03", "xmp:photoshop:DateCreated", "non-screenshots"),
            ("Screenshot_20220304-101112.jxl", try SampleJXL.jxl(marker, lossless: true), "2022/2022-03/2022-03-04", "filename", "screenshots"),
            // Turned in its codestream and, as a converted camera JPEG is, in its EXIF too.
            ("turned.jxl", try SampleJXL.jxl(marker.stored(forOrientation: 6), orientation: 6, exifTIFF: turnedExif), "2018/2018-07/2018-07-08",
             "exif:DateTimeOriginal", "non-screenshots"),
            ("packed.jxl", try SampleJXL.jxl(marker, exifTIFF: exif, compressBoxes: true), "2020/2020-01/2020-01-02", "mtime", "non-screenshots"),
            ("named-wrong.png", try SampleJXL.jxl(marker, exifTIFF: exif), "2021/2021-06/2021-06-15", "exif:DateTimeOriginal", "non-screenshots"),
        ]
        // 2020-01-02 12:00 UTC: that day in any zone within 12 hours.
        for f in files { try SampleLibrary.writeFile(source + "/" + f.name, f.bytes, mtime: 1_577_966_400) }
        try checkJXLFixtures(source, files.map(\.name))
        let whole = try SampleJXL.jxl(.marker(width: 640, height: 480), exifTIFF: exif)
        try SampleLibrary.writeFile(source + "/cut.jxl", Array(whole[..<(whole.count / 2)]), mtime: 1_577_966_400)
        let bare = try SampleJXL.jxl(.marker(width: 640, height: 480), lossless: true)
        try SampleLibrary.writeFile(source + "/cut-bare.jxl", Array(bare[..<(bare.count / 2)]), mtime: 1_577_966_400)

        let mount = try Mount(source: source, options: ["-o", "thumbnail_ahead=0"])
        for f in files {
            let shown = f.name == "named-wrong.png" ? "named-wrong.jxl" : f.name
            let dated = mount.path("by-date/\(f.day)/\(shown)")
            XCTAssertNotNil(statOf(dated), "\(f.name) in by-date/\(f.day): \(readdirNames(mount.path("by-date")) ?? [])")
            XCTAssertEqual(try readFile(dated).get(), f.bytes, f.name)
            XCTAssertEqual(xattr(dated, "user.albumfs.format"), "jxl", f.name)
            XCTAssertEqual(xattr(dated, "user.albumfs.date_source"), f.source, f.name)
            let problems = xattr(dated, "user.albumfs.problems")
            XCTAssertEqual(problems, f.name == "packed.jxl" ? "EXIF stored Brotli-compressed (brob) not read" : nil, f.name)
            // (turned.jxl's EXIF says 6: libjxl turns it, nothing turns it again.)
            XCTAssertEqual(xattr(dated, "user.albumfs.orientation"), "1", f.name)
            XCTAssertNotNil(statOf(mount.path("\(f.view)/\(shown)")), "\(f.name) in \(f.view)")
            let stem = shown.split(separator: ".").dropLast().joined(separator: ".")
            let thumbnail = mount.path("thumbnails/200x200/\(stem).jpg")
            XCTAssertEqual(statOf(thumbnail)?.st_size, 30_000, f.name)
            try assertThumbnailByImageMagick(thumbnail, f.name)
            try assertMarkerUpright(thumbnail, f.name)
        }
        // Cut short: listed as damaged photos; the container's thumbnail is not listed (nothing
        // decodes), the bare codestream's answers EIO from its worker; the mount goes on.
        let thumbnails = readdirNames(mount.path("thumbnails/200x200")) ?? []
        XCTAssertFalse(thumbnails.contains("cut.jpg"), "\(thumbnails)")
        XCTAssertEqual(xattr(mount.path("by-date/2020/2020-01/2020-01-02/cut.jxl"), "user.albumfs.problems"), "header truncated")
        XCTAssertTrue(thumbnails.contains("cut-bare.jpg"), "its header is whole: \(thumbnails)")
        XCTAssertEqual(readFile(mount.path("thumbnails/200x200/cut-bare.jpg")).failure?.code, EIO)
        let errors = (try? String(contentsOfFile: mount.path(".albumfs/errors"), encoding: .utf8)) ?? ""
        XCTAssertTrue(errors.contains("cut-bare.jxl: cannot make a thumbnail: not a decodable JPEG XL image"), errors)
        XCTAssertEqual(try readFile(mount.path("thumbnails/200x200/PXL_camera.jpg")).get().count, 30_000, "the mount goes on")
        XCTAssertEqual(daemonStatus(mount.mountpoint)["images_not_shown"], "0")
        mount.finish(allowing: ["cannot make a thumbnail of cut-bare.jxl"])
    }

    /// What outside readers make of the JPEG XL fixtures: libjxl's `jxlinfo` a JPEG XL image of
    /// the marker's size (turned for `turned.jxl`), exiftool the dates of their boxes.
    func checkJXLFixtures(_ source: String, _ names: [String]) throws {
        for name in names {
            let info = shell("jxlinfo '\(source)/\(name)'")
            XCTAssertEqual(info.status, 0, "\(name): \(info.stdout)\(info.stderr)")
            XCTAssertTrue(info.stdout.contains(name == "turned.jxl" ? "240x320" : "320x240"), "\(name): \(info.stdout)")
        }
        XCTAssertTrue(shell("jxlinfo '\(source)/turned.jxl'").stdout.contains("Orientation: 6"))
        XCTAssertTrue(shell("jxlinfo '\(source)/PXL_camera.jxl'").stdout.contains("Uncompressed Exif metadata"))
        XCTAssertTrue(shell("jxlinfo '\(source)/packed.jxl'").stdout.contains("Brotli-compressed Exif metadata"))
        let dates = shell("exiftool -q -s3 -DateTimeOriginal -DateCreated '\(source)/PXL_camera.jxl' '\(source)/export.jxl'")
        XCTAssertEqual(dates.stdout, "2021:06:15 10:20:30\n2019:02:03 04:05:06+01:00\n", dates.stderr)
    }

    /// A thumbnail as ImageMagick reads it: a 200x200 JPEG whose top-left is the marker's red.
    func assertThumbnailByImageMagick(_ path: String, _ what: String) throws {
        let identify = shell("/usr/bin/identify -format '%m %wx%h' '\(path)'")
        XCTAssertEqual(identify.stdout, "JPEG 200x200", "\(what): \(identify.stderr)")
        let pixel = shell("/usr/bin/convert '\(path)' -format '%[fx:int(255*p{10,20}.r)] %[fx:int(255*p{10,20}.g)]' info:")
        let rg = pixel.stdout.split(separator: " ").compactMap { Int($0) }
        XCTAssertEqual(rg.count, 2, "\(what): \(pixel.stdout)\(pixel.stderr)")
        XCTAssertGreaterThan(rg.first ?? 0, 170, "\(what): red at 10,20: \(rg)")
        XCTAssertLessThan(rg.last ?? 255, 90, "\(what): red at 10,20: \(rg)")
    }
}
