import AlbumSample
import Foundation
import Glibc
import XCTest

/// Sidecars beside photos (XMP, Google Takeout's JSON): they date their photos, are listed
/// nowhere, and a change to one is a change of its photo, live and across a remount.
final class SidecarMountTests: XCTestCase {
    var source: String!
    var state: String!

    override func setUpWithError() throws {
        source = makeTempFolder("src")
        state = makeTempFolder("state")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: source)
        try? FileManager.default.removeItem(atPath: state)
    }

    func write(_ path: String, _ bytes: [UInt8]) {
        let full = source + "/" + path
        try? FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: full, contents: Data(bytes)), path)
    }

    /// A JPEG that carries no date at all: only its sidecar or its mtime can date it.
    func plainJPEG(_ tint: UInt8) throws -> [UInt8] { try SampleJPEG.jpeg(.marker(width: 48, height: 32, tint: tint)) }

    /// exiftool's value of `tag` in a sidecar as written (the outside reader's word on the fixture).
    func exiftool(_ tag: String, _ path: String) -> String {
        runCommand("/usr/bin/exiftool", ["-s3", "-" + tag, source + "/" + path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func mount() throws -> Mount {
        try Mount(source: source, options: ["-o", "index=" + state + "/index.sqlite"], launcher: ["/usr/bin/env", "TZ=UTC"])
    }

    func testSidecarsDateTheirPhotosAndAreListedNowhere() throws {
        write("Darktable/plain.jpg", try plainJPEG(10))
        write("Darktable/plain.jpg.xmp", Array(SidecarWriter.xmp(dates: .init(dateCreated: "2021-03-04T05:06:07+01:00"), rating: 3, keywords: ["Lyon"]).utf8))
        write("Lightroom/scan.jpg", try plainJPEG(20))
        write("Lightroom/scan.XMP", Array(SidecarWriter.xmp(dates: .init(createDate: "2017-08-09T10:11:12")).utf8))
        XCTAssertEqual(exiftool("DateCreated", "Darktable/plain.jpg.xmp"), "2021:03:04 05:06:07+01:00")
        XCTAssertEqual(exiftool("CreateDate", "Lightroom/scan.XMP"), "2017:08:09 10:11:12")
        // 2019-07-04T18:30:00Z, no place; 2020-01-01T03:00:00Z in New York, the evening before there.
        write("Takeout/IMG_1234.jpg", try plainJPEG(30))
        write("Takeout/IMG_1234.jpg.supplemental-metadata.json", Array(SidecarWriter.takeout(title: "IMG_1234.jpg", takenTime: 1_562_265_000).utf8))
        write("Takeout/IMG_1234(1).jpg", try plainJPEG(40))
        write("Takeout/IMG_1234.jpg(1).json", Array(SidecarWriter.takeout(title: "IMG_1234.jpg", takenTime: 1_577_847_600,
                                                                          latitude: 40.71, longitude: -74.0, favorited: true).utf8))
        XCTAssertEqual(exiftool("PhotoTakenTimeTimestamp", "Takeout/IMG_1234.jpg(1).json"), "1577847600")
        // A camera's own date beats its Takeout JSON.
        let camera = SampleJPEG.insertingAPP1(SampleExif.camera("Canon", "EOS R6", "2010:01:02 03:04:05").payload(), into: try plainJPEG(50))
        write("Takeout/camera.jpg", camera)
        write("Takeout/camera.jpg.json", Array(SidecarWriter.takeout(title: "camera.jpg", takenTime: 1_562_265_000).utf8))
        write("Takeout/orphan.json", Array(#"{"title": "an album's metadata"}"#.utf8))
        // A sidecar that cannot be read: said on its photo, which keeps its own date.
        write("Broken/bad.jpg", try plainJPEG(60))
        write("Broken/bad.jpg.json", Array(#"{"photoTakenTime": {"timestamp": "#.utf8))

        let m = try mount()
        let expected = [
            ("2021/2021-03/2021-03-04/plain.jpg", "xmp-sidecar:photoshop:DateCreated", "2021-03-04T05:06:07+01:00"),
            ("2017/2017-08/2017-08-09/scan.jpg", "xmp-sidecar:xmp:CreateDate", "2017-08-09T10:11:12"),
            ("2019/2019-07/2019-07-04/IMG_1234.jpg", "takeout:photoTakenTime", "2019-07-04T18:30:00Z"),
            ("2019/2019-12/2019-12-31/IMG_1234(1).jpg", "takeout:photoTakenTime", "2019-12-31T22:00:00-05:00"),
            ("2010/2010-01/2010-01-02/camera.jpg", "exif:DateTimeOriginal", nil),
        ] as [(String, String, String?)]
        for (day, dateSource, time) in expected {
            let path = m.path("by-date/" + day)
            XCTAssertNotNil(statOf(path), "\(day) in \(readdirNames(m.path("by-date")) ?? [])")
            XCTAssertEqual(xattr(path, "user.albumfs.date_source"), dateSource, day)
            if let time { XCTAssertEqual(xattr(path, "user.albumfs.capture_time"), time, day) }
            XCTAssertNil(xattr(path, "user.albumfs.problems"), day)
        }
        // What the sidecars say, on their photos.
        let plain = m.path("by-date/2021/2021-03/2021-03-04/plain.jpg")
        XCTAssertEqual(xattr(plain, "user.albumfs.sidecar"), source + "/Darktable/plain.jpg.xmp")
        XCTAssertEqual(xattr(plain, "user.albumfs.rating"), "3 (xmp-sidecar:Rating)")
        XCTAssertEqual(xattr(plain, "user.albumfs.keywords"), "Lyon")
        XCTAssertNil(xattr(plain, "user.albumfs.favorited"))
        let copy = m.path("non-screenshots/IMG_1234(1).jpg")
        XCTAssertEqual(xattr(copy, "user.albumfs.sidecar"), source + "/Takeout/IMG_1234.jpg(1).json")
        XCTAssertEqual(xattr(copy, "user.albumfs.favorited"), "yes")
        XCTAssertEqual(xattr(m.path("non-screenshots/camera.jpg"), "user.albumfs.sidecar"), source + "/Takeout/camera.jpg.json",
                       "a sidecar that gives no date is still named")
        XCTAssertNil(xattr(m.path("non-screenshots/IMG_1234.jpg"), "user.albumfs.favorited"), "Takeout said nothing of it")
        // favorites/: Takeout's `favorited` makes one; a sidecar's rating of 3 does not (below 4).
        let favorites = try XCTUnwrap(readdirNames(m.path("favorites")))
        XCTAssertTrue(favorites.contains("IMG_1234(1).jpg"), "\(favorites)")
        XCTAssertFalse(favorites.contains("plain.jpg"), "\(favorites)")
        let bad = m.path("non-screenshots/bad.jpg")
        XCTAssertEqual(xattr(bad, "user.albumfs.problems"), "sidecar bad.jpg.json: sidecar is not valid JSON, not read")
        XCTAssertEqual(xattr(bad, "user.albumfs.date_source"), "mtime")
        XCTAssertNil(xattr(bad, "user.albumfs.sidecar"))
        // Nowhere in the mount is a sidecar a file.
        let everything = FileManager.default.enumerator(atPath: m.mountpoint)?.compactMap { $0 as? String } ?? []
        XCTAssertGreaterThan(everything.filter { $0.hasPrefix("by-date/") && $0.hasSuffix(".jpg") }.count, 4)
        let sidecars = everything.filter { $0.lowercased().hasSuffix(".xmp") || $0.hasSuffix(".json") }
        XCTAssertEqual(sidecars, [], "sidecars listed")
        // Said as sidecars, not as documents.
        let notShown = ((try? String(contentsOfFile: m.path(".albumfs/not-shown"), encoding: .utf8)) ?? "").split(separator: "\n")
        XCTAssertTrue(notShown.contains("Darktable/plain.jpg.xmp: sidecar (xmp)"), "\(notShown)")
        XCTAssertTrue(notShown.contains("Takeout/orphan.json: sidecar (json)"), "\(notShown)")
        XCTAssertEqual(daemonStatus(m.mountpoint)["not_shown_by_reason"], "sidecars 7")
        m.finish()
    }

    /// The day folder a photo is in, by its flat view's `capture_time` (nil: not there).
    func day(_ m: Mount, _ name: String) -> String? {
        xattr(m.path("non-screenshots/" + name), "user.albumfs.capture_time").map { String($0.prefix(10)) }
    }

    func testASidecarChangedWhileMountedOrNotMovesItsPhoto() throws {
        write("plain.jpg", try plainJPEG(10))
        write("plain.jpg.xmp", Array(SidecarWriter.xmp(dates: .init(dateCreated: "2021-03-04T05:06:07")).utf8))
        write("IMG_9.jpg", try plainJPEG(20))
        var m = try mount()
        XCTAssertEqual(day(m, "plain.jpg"), "2021-03-04")
        // Edited in place (no new file, the folder's times kept): the photo moves to its new day.
        let edit = try FileHandle(forWritingTo: URL(fileURLWithPath: source + "/plain.jpg.xmp"))
        try edit.truncate(atOffset: 0)
        try edit.write(contentsOf: Data(SidecarWriter.xmp(dates: .init(dateCreated: "2022-05-06T07:08:09")).utf8))
        try edit.close()
        XCTAssertTrue(eventually(15) { statOf(m.path("by-date/2022/2022-05/2022-05-06/plain.jpg")) != nil },
                      "moved to its new day: \(day(m, "plain.jpg") ?? "nowhere")")
        XCTAssertNil(statOf(m.path("by-date/2021/2021-03/2021-03-04/plain.jpg")), "and left its old day")
        // A Takeout JSON added beside another photo: dated by it.
        write("IMG_9.jpg.json", Array(SidecarWriter.takeout(title: "IMG_9.jpg", takenTime: 1_262_347_200).utf8))  // 2010-01-01T12:00:00Z
        XCTAssertTrue(eventually(15) { day(m, "IMG_9.jpg") == "2010-01-01" }, "\(day(m, "IMG_9.jpg") ?? "nowhere")")
        XCTAssertEqual(xattr(m.path("non-screenshots/IMG_9.jpg"), "user.albumfs.date_source"), "takeout:photoTakenTime")
        // Removed: the photo falls back to its mtime.
        XCTAssertEqual(unlink(source + "/plain.jpg.xmp"), 0)
        XCTAssertTrue(eventually(15) { xattr(m.path("non-screenshots/plain.jpg"), "user.albumfs.date_source") == "mtime" })
        XCTAssertTrue(eventually(15) { daemonStatus(m.mountpoint)["index_pending"] == "0" })
        m.finish()
        // Changed while unmounted: the remount reads the photo again with it.
        write("plain.jpg.xmp", Array(SidecarWriter.xmp(dates: .init(dateTimeOriginal: "2023-01-02T03:04:05")).utf8))
        m = try mount()
        XCTAssertEqual(day(m, "plain.jpg"), "2023-01-02")
        XCTAssertEqual(xattr(m.path("non-screenshots/plain.jpg"), "user.albumfs.date_source"), "xmp-sidecar:exif:DateTimeOriginal")
        XCTAssertEqual(day(m, "IMG_9.jpg"), "2010-01-01", "kept from the index")
        m.finish()
    }
}
