import AlbumCore
import AlbumSample
import Foundation
import Glibc
import XCTest

/// `favorites/`: photos rated at or above `-o favorite_rating` (4) in their XMP or their EXIF,
/// as exiftool reads the ratings the fixtures carry; flat, newest first, the by-date file.
final class FavoritesTests: XCTestCase {
    var source: SampleSource!

    override func setUpWithError() throws {
        source = try SampleSource()
        try FileManager.default.createDirectory(atPath: source.path + "/Rated", withIntermediateDirectories: true)
        for (name, day, xmp, exif) in Self.rated {
            XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Rated/" + name, contents: Data(try Self.jpeg(day, xmp: xmp, exif: exif))))
        }
    }

    override func tearDown() { source?.remove() }

    /// Name, day, xmp:Rating, EXIF Rating.
    static let rated: [(String, String, String?, UInt16?)] = [
        ("XMP5.JPG", "2024:06:01 10:00:00", "5", nil),
        ("EXIF4.JPG", "2024:06:02 10:00:00", nil, 4),
        ("XMP3.JPG", "2024:06:03 10:00:00", "3", nil),
        ("REJECTED.JPG", "2024:06:04 10:00:00", "-1", 5),
    ]

    /// A camera JPEG with a rating in its XMP, its EXIF, or both.
    static func jpeg(_ date: String, xmp: String?, exif: UInt16?) throws -> [UInt8] {
        var bytes = try SampleJPEG.jpeg(.marker(width: 48, height: 32, tint: 120))
        if let xmp { bytes = SampleJPEG.insertingAPP1(SampleXMP.xmpAPP1(SampleXMP.ratingXMP(xmp)), into: bytes) }
        var camera = SampleExif.camera("Canon", "Canon EOS R5", ExifTime(date))
        camera.rating = exif
        return SampleJPEG.insertingAPP1(camera.payload(), into: bytes)
    }

    /// exiftool's `XMP:Rating` and `EXIF:Rating` of a file ("-" where there is none).
    func exiftoolRatings(_ path: String) -> [String] {
        let run = runCommand("/usr/bin/env", ["exiftool", "-s3", "-f", "-XMP:Rating", "-EXIF:Rating", path])
        return run.stdout.split(separator: "\n").map(String.init)
    }

    func testRatedPhotosAreFavoritesNewestFirstWithTheirRatingExplained() throws {
        XCTAssertEqual(exiftoolRatings(source.path + "/Rated/XMP5.JPG"), ["5", "-"])
        XCTAssertEqual(exiftoolRatings(source.path + "/Rated/EXIF4.JPG"), ["-", "4"])
        XCTAssertEqual(exiftoolRatings(source.path + "/Rated/REJECTED.JPG"), ["-1", "5"])
        let m = try Mount(source: source.path)
        defer { m.finish() }
        XCTAssertEqual(readdirNames(m.path("favorites")), ["EXIF4.JPG", "XMP5.JPG"], "the rejected one's XMP wins; 3 is under the threshold")
        XCTAssertEqual(xattr(m.path("favorites/XMP5.JPG"), "user.albumfs.rating"), "5 (xmp:Rating)")
        XCTAssertEqual(xattr(m.path("favorites/EXIF4.JPG"), "user.albumfs.rating"), "4 (exif:Rating)")
        XCTAssertEqual(xattr(m.path("non-screenshots/XMP3.JPG"), "user.albumfs.rating"), "3 (xmp:Rating)")
        XCTAssertEqual(xattr(m.path("non-screenshots/REJECTED.JPG"), "user.albumfs.rating"), "-1 (xmp:Rating)")
        XCTAssertNil(xattr(m.path("non-screenshots/DSC01234.JPG"), "user.albumfs.rating"), "not rated: no attribute")
        // (The rated photos are one picture: once hashed, they are one group of duplicates/similar/,
        // which st_nlink does not count.)
        XCTAssertTrue(eventually(60) { daemonStatus(m.mountpoint)["similar"] == "done" }, "\(daemonStatus(m.mountpoint))")
        let fav = try XCTUnwrap(statOf(m.path("favorites/XMP5.JPG")))
        let dated = try XCTUnwrap(statOf(m.path("by-date/2024/2024-06/2024-06-01/XMP5.JPG")))
        XCTAssertEqual(fav.st_ino, dated.st_ino)
        XCTAssertEqual(fav.st_nlink, 4, "by-date, non-screenshots, by-camera, favorites (duplicates/similar/ is not counted)")
        XCTAssertEqual(FileManager.default.contents(atPath: m.path("favorites/XMP5.JPG")),
                       FileManager.default.contents(atPath: source.path + "/Rated/XMP5.JPG"))

        // A rated photo copied in shows within the live-update bound.
        let staged = source.path + "/.staged.jpg"
        XCTAssertTrue(FileManager.default.createFile(atPath: staged, contents: Data(try Self.jpeg("2024:06:05 10:00:00", xmp: "4", exif: nil))))
        XCTAssertEqual(exiftoolRatings(staged), ["4", "-"])
        XCTAssertEqual(rename(staged, source.path + "/Rated/NEW4.JPG"), 0)
        let start = Date()
        XCTAssertTrue(eventually(5) { readdirNames(m.path("favorites")) == ["NEW4.JPG", "EXIF4.JPG", "XMP5.JPG"] },
                      "\(readdirNames(m.path("favorites")) ?? [])")
        XCTAssertLessThan(Date().timeIntervalSince(start), 2.5, "within the live-update bound")
    }

    /// `-o favorite_rating=3` lists the photo rated 3 too; out of 1–5 it is a usage error.
    func testTheThresholdIsAnOption() throws {
        let m = try Mount(source: source.path, options: ["-o", "favorite_rating=3"])
        XCTAssertEqual(readdirNames(m.path("favorites")), ["XMP3.JPG", "EXIF4.JPG", "XMP5.JPG"])
        m.finish()
        let mountpoint = makeTempFolder("fav")
        defer { try? FileManager.default.removeItem(atPath: mountpoint) }
        for bad in ["0", "6", "four", ""] {
            let r = runCommand(albumfsBinary(), ["-o", "favorite_rating=" + bad, source.path, mountpoint])
            XCTAssertEqual(r.status, 2, bad)
            XCTAssertTrue(r.stderr.contains("option 'favorite_rating' takes a rating from 1 to 5"), r.stderr)
        }
    }
}
