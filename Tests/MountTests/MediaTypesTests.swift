import AlbumCore
import AlbumSample
import Foundation
import Glibc
import XCTest

/// `media-types/`: the sample's photos of each kind, as exiftool reads the tags their devices
/// write, listed flat and newest first (bursts a folder each), the by-date file, picks from there,
/// a photo added live in its kind, `-o views=` hiding it.
final class MediaTypesTests: SampleLibraryTestCase {
    /// Each kind's listing of the sample, in readdir order (bursts: the burst's folder, then its photos).
    static let listings: [(String, [String])] = [
        ("live-photos", ["IMG_1410.HEIC", "IMG_1402.JPG", "PXL_20231010_081500123.MP.jpg", "IMG_0300.JPG"]),
        ("portraits", ["PXL_20240604_090000000.PORTRAIT.jpg", "IMG_2002.JPG"]),
        ("panoramas", ["PANO_20240605_080000.jpg", "IMG_2001.JPG"]),
        ("selfies", ["IMG_2002.JPG"]),
        ("bursts", ["IMG_2101"]),
        ("bursts/IMG_2101", ["IMG_2103.JPG", "IMG_2102.JPG", "IMG_2101.JPG"]),
        ("slo-mo", ["IMG_2200.MOV", "VID_20240606_070000.mp4"]),
        ("time-lapse", ["VID_20240608_060000.mp4"]),
        ("screen-recordings", ["RPReplay_Final1696156734.MP4"]),
        ("cinematic", []),
        ("spatial", []),
        ("raw", []),
    ]

    /// exiftool's value of `tag` in a file of the sample ("-" where there is none).
    func exiftool(_ tag: String, _ path: String) -> String {
        runCommand("/usr/bin/env", ["exiftool", "-s3", "-f", "-" + tag, source.path + "/" + path]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testTheFixturesCarryTheVendorsTags() {
        XCTAssertEqual(exiftool("ExifIFD:CustomRendered", "Kinds/IMG_2001.JPG"), "Panorama")
        XCTAssertEqual(exiftool("ExifIFD:CustomRendered", "Kinds/IMG_2002.JPG"), "Portrait")
        XCTAssertEqual(exiftool("ExifIFD:LensModel", "Kinds/IMG_2002.JPG"), "iPhone 15 Pro front camera 2.69mm f/1.9")
        for k in 1...3 { XCTAssertEqual(exiftool("Apple:BurstUUID", "Kinds/IMG_210\(k).JPG"), "5E0C3A1B-7D2F-4E8A-9B6C-0D1E2F3A4B5C") }
        XCTAssertEqual(exiftool("XMP-GCamera:SpecialTypeID", "Kinds/PXL_20240604_090000000.PORTRAIT.jpg"),
                       "com.google.android.apps.camera.gallery.specialtype.SpecialType-PORTRAIT")
        XCTAssertEqual(exiftool("XMP-GPano:ProjectionType", "Kinds/PANO_20240605_080000.jpg"), "equirectangular")
        XCTAssertEqual(exiftool("Keys:AndroidCaptureFps", "Kinds/VID_20240606_070000.mp4"), "240.0")
        XCTAssertEqual(exiftool("Keys:AndroidCaptureFps", "Kinds/VID_20240608_060000.mp4"), "1.0")
        XCTAssertEqual(exiftool("Keys:Full-frame-rate-playback-intent", "Kinds/IMG_2200.MOV"), "0")
        XCTAssertEqual(exiftool("ExifIFD:CustomRendered", "iPhone/IMG_1234.JPG"), "-", "a plain photo carries none")
    }

    func testEachKindListsItsPhotosNewestFirstTheByDateFile() throws {
        let m = try Mount(source: source.path)
        defer { m.finish() }
        XCTAssertEqual(readdirNames(m.path("media-types")), MediaKind.allCases.map(\.name), "every kind listed, even empty")
        for (folder, names) in Self.listings {
            XCTAssertEqual(readdirNames(m.path("media-types/" + folder)), names, folder)
        }
        let portrait = try XCTUnwrap(statOf(m.path("media-types/portraits/IMG_2002.JPG")))
        let dated = try XCTUnwrap(statOf(m.path("by-date/2024/2024-06/2024-06-02/IMG_2002.JPG")))
        XCTAssertEqual(portrait.st_ino, dated.st_ino)
        XCTAssertEqual(statOf(m.path("media-types/selfies/IMG_2002.JPG"))?.st_ino, dated.st_ino)
        XCTAssertEqual(portrait.st_nlink, 5, "by-date, non-screenshots, by-camera, portraits, selfies")
        let capture = try XCTUnwrap(ISO8601DateFormatter().date(from: "2024-06-02T11:00:00+02:00"))
        XCTAssertEqual(portrait.st_mtim.tv_sec, Int(capture.timeIntervalSince1970), "mtime: the capture")
        XCTAssertEqual(FileManager.default.contents(atPath: m.path("media-types/bursts/IMG_2101/IMG_2102.JPG")),
                       FileManager.default.contents(atPath: source.path + "/Kinds/IMG_2102.JPG"))
        XCTAssertEqual(xattr(m.path("media-types/portraits/IMG_2002.JPG"), "user.albumfs.kinds"),
                       "portraits (exif:CustomRendered is 8 (Portrait)), selfies (exif:LensModel names the front camera)")
        XCTAssertEqual(xattr(m.path("media-types/bursts/IMG_2101/IMG_2101.JPG"), "user.albumfs.kinds"), "bursts (apple:BurstUUID is set)")
        XCTAssertEqual(xattr(m.path("media-types/bursts/IMG_2101/IMG_2101.JPG"), "user.albumfs.burst"), "5E0C3A1B-7D2F-4E8A-9B6C-0D1E2F3A4B5C")
        XCTAssertEqual(xattr(m.path("media-types/slo-mo/VID_20240606_070000.mp4"), "user.albumfs.kinds"),
                       "slo-mo (quicktime:com.android.capture.fps is 100 or more)")
        XCTAssertEqual(xattr(m.path("media-types/live-photos/IMG_1402.JPG"), "user.albumfs.kinds"),
                       "live-photos (paired with by-date/2024/2024-05/2024-05-20/IMG_1402.MOV)")
        XCTAssertNil(xattr(m.path("non-screenshots/DSC01234.JPG"), "user.albumfs.kinds"), "of no kind: no attribute")
        XCTAssertNil(readdirNames(m.path("media-types/selfie")))
        XCTAssertEqual(errno, ENOENT)
        XCTAssertEqual(mkdir(m.path("media-types/new"), 0o755), -1)
        XCTAssertEqual(errno, EROFS)
    }

    /// A photo copied in shows in its kind within the live-update bound; a pick from
    /// `media-types/` is the photo.
    func testAPhotoAddedLiveJoinsItsKindAndPicksWork() throws {
        let m = try Mount(source: source.path)
        defer { m.finish() }
        XCTAssertEqual(symlink("../media-types/panoramas/IMG_2001.JPG", m.path("picked/IMG_2001.JPG")), 0, "a pick from media-types/: \(errno)")
        XCTAssertTrue(eventually { readdirNames(m.path("picked")) == ["IMG_2001.JPG"] })
        XCTAssertEqual(statOf(m.path("picked/IMG_2001.JPG"))?.st_ino, statOf(m.path("media-types/panoramas/IMG_2001.JPG"))?.st_ino)

        var pano = SampleExif.camera("Apple", "iPhone 15 Pro", ExifTime("2024:06:09 10:00:00", offset: "+02:00"), order: .motorola)
        pano.customRendered = 6
        let staged = source.path + "/.staged.jpg"
        XCTAssertTrue(FileManager.default.createFile(atPath: staged, contents: Data(SampleJPEG.insertingAPP1(pano.payload(),
                                                                                                          into: try SampleJPEG.jpeg(.marker(width: 48, height: 32))))))
        XCTAssertEqual(runCommand("/usr/bin/env", ["exiftool", "-s3", "-ExifIFD:CustomRendered", staged]).stdout, "Panorama\n")
        XCTAssertEqual(rename(staged, source.path + "/Kinds/IMG_2300.JPG"), 0)
        let start = Date()
        let expected = ["IMG_2300.JPG", "PANO_20240605_080000.jpg", "IMG_2001.JPG"]
        XCTAssertTrue(eventually(5) { readdirNames(m.path("media-types/panoramas")) == expected }, "\(readdirNames(m.path("media-types/panoramas")) ?? [])")
        XCTAssertLessThan(Date().timeIntervalSince(start), 2.5, "within the live-update bound")
        XCTAssertEqual(statOf(m.path("media-types/panoramas/IMG_2300.JPG"))?.st_ino, statOf(m.path("by-date/2024/2024-06/2024-06-09/IMG_2300.JPG"))?.st_ino)
        XCTAssertEqual(unlink(source.path + "/Kinds/IMG_2101.JPG"), 0)
        XCTAssertTrue(eventually(5) { readdirNames(m.path("media-types/bursts")) == ["IMG_2102"] },
                      "a burst is named after its first photo: \(readdirNames(m.path("media-types/bursts")) ?? [])")
    }

    func testViewsOptionHidesMediaTypes() throws {
        let others = ShownViews.names.filter { $0 != LibraryViews.mediaTypes }
        let m = try Mount(source: source.path, options: ["-o", "views=" + others.joined(separator: ",")])
        defer { m.finish() }
        XCTAssertEqual(readdirNames(m.mountpoint), others + [".albumfs"])
        XCTAssertNil(statOf(m.path("media-types")))
        XCTAssertEqual(errno, ENOENT)
        XCTAssertEqual(statOf(m.path("non-screenshots/IMG_2002.JPG"))?.st_nlink, 3, "by-date, non-screenshots, by-camera")
        let only = try Mount(source: source.path, options: ["-o", "views=media-types"])
        defer { only.finish() }
        XCTAssertEqual(readdirNames(only.mountpoint), ["media-types", ".albumfs"])
        XCTAssertEqual(readdirNames(only.path("media-types/selfies")), ["IMG_2002.JPG"])
        XCTAssertEqual(statOf(only.path("media-types/selfies/IMG_2002.JPG"))?.st_nlink, 2, "portraits, selfies")
    }
}
