import AlbumCore
import AlbumSample
import CSysXattr
import Foundation
import XCTest

/// Android motion photos through the mount: each layout's video beside its still in `by-date/`,
/// its bytes the original's range, linked both ways, in no flat view, read-only; a bad offset
/// a still without motion; a name taken by a real video; a pick of the still; a remount.
final class MotionPhotoMountTests: XCTestCase {
    var folder: String!
    var clip: [UInt8] = []

    /// One motion photo per layout, a still whose XMP offset lies past its end, and a real video
    /// named as the Samsung photo's video would be, taken the same second.
    struct Fixture {
        let path: String
        let bytes: [UInt8]
        let day: String
    }
    var fixtures: [String: Fixture] = [:]

    override func setUpWithError() throws {
        folder = makeTempFolder("motion")
        clip = try SampleLibrary.motionClip.get()
        let image = try SampleJPEG.jpeg(.marker(width: 96, height: 64))
        func still(_ make: String, _ model: String, _ date: String) -> [UInt8] {
            SampleJPEG.insertingAPP1(SampleExif.camera(make, model, ExifTime(date)).payload(), into: image)
        }
        let pixel = SampleMotionPhoto.motionPhoto(still("Google", "Pixel 8 Pro", "2023:10:10 08:15:00"), video: clip, layout: .googleContainer)
        let older = SampleMotionPhoto.motionPhoto(still("Google", "Pixel 3", "2019:04:05 06:07:08"), video: clip, layout: .googleMicroVideo)
        let samsung = SampleMotionPhoto.motionPhoto(still("samsung", "Galaxy S24", "2024:06:01 12:00:00"), video: clip, layout: .samsungTrailer)
        var bad = SampleMotionPhoto.motionPhoto(still("Google", "Pixel 3", "2019:04:06 06:07:08"), video: clip, layout: .googleMicroVideo)
        bad = Array(bad.prefix(bad.count - clip.count / 2))  // cut in its video: the offset now points before it
        let real = try SampleVideo.video(.marker(width: 64, height: 48), container: .mp4, metadata: [("creation_time", "2024-06-01T12:00:00Z")])
        for (key, path, bytes, day) in [
            ("pixel", "Phone/PXL_20231010_081500123.MP.jpg", pixel, "2023/2023-10/2023-10-10"),
            ("older", "Phone/MVIMG_20190405_060708.jpg", older, "2019/2019-04/2019-04-05"),
            ("samsung", "Samsung/20240601_120000.jpg", samsung, "2024/2024-06/2024-06-01"),
            ("bad", "Phone/MVIMG_20190406_060708.jpg", bad, "2019/2019-04/2019-04-06"),
            ("real", "Samsung/20240601_120000.mp4", real, "2024/2024-06/2024-06-01"),
        ] {
            fixtures[key] = Fixture(path: path, bytes: bytes, day: "by-date/" + day)
            try SampleLibrary.writeFile(folder + "/" + path, bytes, mtime: SampleLibrary.defaultMtime)
        }
    }

    override func tearDown() {
        if let folder { try? FileManager.default.removeItem(atPath: folder) }
    }

    /// Each layout's video: listed right after its still, the range's size and the still's time,
    /// the original's bytes at the range (cmp), an H.264 clip of the fixture's size and length
    /// (exiftool reads it as it reads the clip itself), attributes naming each other.
    func testEachLayoutsVideoIsBesideItsStillAndIsTheOriginalsRange() throws {
        let mount = try Mount(source: folder)
        defer { mount.finish() }
        let clipPath = folder + "/../" + (folder as NSString).lastPathComponent + "-clip.mp4"
        let reference = try exiftoolVideo(clipPath, write: clip)
        XCTAssertTrue(FileManager.default.createFile(atPath: clipPath, contents: Data(clip)))
        let decoded = ffprobeFrames(clipPath)
        try? FileManager.default.removeItem(atPath: clipPath)
        XCTAssertTrue(decoded.hasPrefix("h264,96,64,") && !decoded.hasSuffix(",0"), "ffprobe decodes the clip: \(decoded)")
        for key in ["pixel", "older", "samsung"] {
            let f = fixtures[key]!
            let stillName = (f.path as NSString).lastPathComponent
            let videoName = try XCTUnwrap(videoEntry(of: f, in: mount), key)
            let listing = try XCTUnwrap(readdirNames(mount.path(f.day)), key)
            let at = try XCTUnwrap(listing.firstIndex(of: stillName), "\(key): \(listing)")
            XCTAssertEqual(listing.firstIndex(of: videoName), at + 1, "\(key): the video right after its still: \(listing)")
            let video = mount.path(f.day + "/" + videoName), still = mount.path(f.day + "/" + stillName)
            XCTAssertEqual(statOf(video)?.st_size, off_t(clip.count), key)
            XCTAssertEqual(statOf(video)?.st_mtim.tv_sec, statOf(still)?.st_mtim.tv_sec, "\(key): the still's capture time")
            XCTAssertTrue(try readFile(video).get() == clip, "\(key): the clip's bytes")
            let offset = try XCTUnwrap(range(of: clip, in: f.bytes), key)
            let cmp = runCommand("/usr/bin/cmp", ["-n", "\(clip.count)", "-i", "0:\(offset)", video, folder + "/" + f.path])
            XCTAssertEqual(cmp.status, 0, "\(key): \(cmp.stdout)\(cmp.stderr)")
            XCTAssertEqual(try exiftoolVideo(video), reference, key)
            XCTAssertEqual(ffprobeFrames(video), decoded, "\(key): ffprobe decodes the mounted file as the clip")
            XCTAssertEqual(xattr(still, "user.albumfs.motion_photo"), f.day + "/" + videoName, key)
            XCTAssertEqual(xattr(video, "user.albumfs.motion_photo"), f.day + "/" + stillName, key)
            XCTAssertEqual(xattr(video, "user.albumfs.format"), "video", key)
            XCTAssertEqual(xattr(video, "user.albumfs.source"), folder + "/" + f.path, key)
            XCTAssertEqual(xattr(video, "user.albumfs.capture_time"), xattr(still, "user.albumfs.capture_time"), key)
            XCTAssertNil(xattr(still, "user.albumfs.live_photo"), key)
            XCTAssertNil(xattr(still, "user.albumfs.problems"), key)
        }
    }

    /// The videos are in no flat view and have no thumbnail (their stills have theirs); the
    /// stills are where stills are.
    func testTheVideosAreInNoFlatView() throws {
        let mount = try Mount(source: folder)
        defer { mount.finish() }
        XCTAssertEqual(readdirNames(mount.path("videos")), ["20240601_120000.mp4"], "the real video alone")
        XCTAssertEqual(xattr(mount.path("videos/20240601_120000.mp4"), "user.albumfs.source"), folder + "/" + fixtures["real"]!.path)
        XCTAssertEqual(Set(readdirNames(mount.path("non-screenshots")) ?? []),
                       ["PXL_20231010_081500123.MP.jpg", "MVIMG_20190405_060708.jpg", "20240601_120000.jpg", "MVIMG_20190406_060708.jpg"])
        XCTAssertEqual(readdirNames(mount.path("screenshots")), [])
        let thumbnails = try XCTUnwrap(readdirNames(mount.path("thumbnails/200x200")))
        XCTAssertEqual(thumbnails.count, 5, "four stills and the real video: \(thumbnails)")
        let sources = thumbnails.map { xattr(mount.path("thumbnails/200x200/" + $0), "user.albumfs.source") ?? "" }
        XCTAssertEqual(Set(sources), Set(fixtures.values.map { folder + "/" + $0.path }), "one thumbnail per file of SOURCE")
        XCTAssertEqual(Set(thumbnails.map { xattr(mount.path("thumbnails/200x200/" + $0), "user.albumfs.format") ?? "" }), ["jpeg", "video"])
    }

    /// A name taken by a real file of the same day: the two are told apart by the suffix every
    /// collision gets (docs/rules.md, "Names"), each reading its own bytes.
    func testARealVideoOfTheSameNameKeepsItsOwnBytes() throws {
        let mount = try Mount(source: folder)
        defer { mount.finish() }
        let day = fixtures["samsung"]!.day
        let names = try XCTUnwrap(readdirNames(mount.path(day)))
        let videos = names.filter { $0.hasSuffix(".mp4") }
        XCTAssertEqual(videos.count, 2, "\(names)")
        XCTAssertEqual(xattr(mount.path(day + "/20240601_120000.mp4"), "user.albumfs.source"), folder + "/" + fixtures["real"]!.path,
                       "the real file keeps its name: \(names)")
        let motion = try XCTUnwrap(videoEntry(of: fixtures["samsung"]!, in: mount))
        XCTAssertTrue(motion.hasPrefix("20240601_120000~") && motion.hasSuffix(".mp4") && motion.count == "20240601_120000~123456.mp4".count,
                      "the video made from the still gets the collision suffix: \(names)")
        for name in videos {
            let isMotion = xattr(mount.path(day + "/" + name), "user.albumfs.motion_photo") != nil
            XCTAssertTrue(try readFile(mount.path(day + "/" + name)).get() == (isMotion ? clip : fixtures["real"]!.bytes), name)
        }
        XCTAssertEqual(videoEntry(of: fixtures["samsung"]!, in: mount).map { names.contains($0) }, true)
    }

    /// A MicroVideoOffset that points at no MP4: a still without motion, and the reason said.
    func testABadOffsetIsAStillWithoutMotionAndItsReason() throws {
        let mount = try Mount(source: folder)
        defer { mount.finish() }
        let f = fixtures["bad"]!
        XCTAssertEqual(readdirNames(mount.path(f.day)), ["MVIMG_20190406_060708.jpg"])
        let still = mount.path(f.day + "/MVIMG_20190406_060708.jpg")
        XCTAssertEqual(xattr(still, "user.albumfs.problems"),
                       "motion photo without its video (xmp GCamera:MicroVideoOffset: no ftyp box where the video should start)")
        XCTAssertNil(xattr(still, "user.albumfs.motion_photo"))
        XCTAssertTrue(try readFile(still).get() == f.bytes, "the still whole")
        XCTAssertNotNil(statOf(mount.path("thumbnails/200x200/MVIMG_20190406_060708.jpg")), "its thumbnail stays")
    }

    /// Writes to the video answer what they answer for every original: EROFS (and EACCES for
    /// X_OK).
    func testTheVideoIsReadOnlyAsEveryOriginalIs() throws {
        let mount = try Mount(source: folder)
        defer { mount.finish() }
        let f = fixtures["pixel"]!
        let video = mount.path(f.day + "/" + (try XCTUnwrap(videoEntry(of: f, in: mount))))
        let still = mount.path(f.day + "/PXL_20231010_081500123.MP.jpg")
        func answer(_ rc: Int32) -> Int32 { rc == -1 ? errno : 0 }
        let operations: [(String, (String) -> Int32)] = [
            ("open for writing", { answer(open($0, O_WRONLY)) }), ("open O_TRUNC", { answer(open($0, O_RDONLY | O_TRUNC)) }),
            ("truncate", { answer(truncate($0, 0)) }), ("unlink", { answer(unlink($0)) }),
            ("rename", { answer(rename($0, $0 + ".x")) }), ("chmod", { answer(chmod($0, 0o666)) }),
            ("setxattr", { answer(setxattr($0, "user.test", "x", 1, 0)) }), ("access(W_OK)", { answer(access($0, W_OK)) }),
            ("access(X_OK)", { answer(access($0, X_OK)) }),
        ]
        for (what, operation) in operations {
            let got = operation(video)
            XCTAssertEqual(got, operation(still), "\(what): as its still answers")
            XCTAssertEqual(got, what == "access(X_OK)" ? EACCES : EROFS, "\(what): \(String(cString: strerror(got)))")
        }
        XCTAssertTrue(try readFile(video).get() == clip, "unchanged")
    }

    /// A pick of the still links the still, whole (its video inside, as the phone wrote it).
    func testAPickOfTheStillStillWorks() throws {
        let mount = try Mount(source: folder)
        defer { mount.finish() }
        let f = fixtures["samsung"]!
        XCTAssertEqual(symlink("../" + f.day + "/20240601_120000.jpg", mount.path("picked/20240601_120000.jpg")), 0,
                       String(cString: strerror(errno)))
        XCTAssertEqual(readdirNames(mount.path("picked")), ["20240601_120000.jpg"])
        XCTAssertTrue(try readFile(mount.path("picked/20240601_120000.jpg")).get() == f.bytes, "the still whole, its video inside")
        XCTAssertEqual(xattr(mount.path("picked/20240601_120000.jpg"), "user.albumfs.motion_photo"), f.day + "/" + (videoEntry(of: f, in: mount) ?? ""))
        // The video can be picked too, and reads as itself.
        let pixel = fixtures["pixel"]!
        let video = try XCTUnwrap(videoEntry(of: pixel, in: mount))
        XCTAssertEqual(symlink("../" + pixel.day + "/" + video, mount.path("picked/" + video)), 0, String(cString: strerror(errno)))
        XCTAssertTrue(try readFile(mount.path("picked/" + video)).get() == clip)
        XCTAssertEqual(Set(readdirNames(mount.path("picked")) ?? []), ["20240601_120000.jpg", video])
    }

    /// A remount reads no file again: the range comes from the index, and serves the same bytes.
    func testARemountServesTheVideoFromTheIndex() throws {
        let first = try Mount(source: folder)
        first.finish()
        let second = try Mount(source: folder)
        defer { second.finish() }
        XCTAssertEqual(daemonStatus(second.mountpoint)["header_reads"], "0")
        let f = fixtures["older"]!
        let name = try XCTUnwrap(videoEntry(of: f, in: second))
        XCTAssertEqual(name, "MVIMG_20190405_060708.mp4")
        XCTAssertTrue(try readFile(second.path(f.day + "/" + name)).get() == clip, "the clip's bytes")
    }

    /// A motion photo copied in while mounted shows its video beside it; removed, both go.
    func testAMotionPhotoAddedWhileMountedShowsItsVideoAndGoesWithIt() throws {
        let mount = try Mount(source: folder)
        defer { mount.finish() }
        let image = try SampleJPEG.jpeg(.marker(width: 96, height: 64))
        let still = SampleJPEG.insertingAPP1(SampleExif.camera("Google", "Pixel 9", "2025:01:02 03:04:05").payload(), into: image)
        let path = folder + "/New/PXL_20250102_030405000.MP.jpg"
        try SampleLibrary.writeFile(path, SampleMotionPhoto.motionPhoto(still, video: clip, layout: .googleContainer), mtime: SampleLibrary.defaultMtime)
        let day = mount.path("by-date/2025/2025-01/2025-01-02")
        XCTAssertTrue(eventually(10) { readdirNames(day) == ["PXL_20250102_030405000.MP.jpg", "PXL_20250102_030405000.MP.mp4"] },
                      "\(readdirNames(day) ?? [])")
        XCTAssertTrue(try readFile(day + "/PXL_20250102_030405000.MP.mp4").get() == clip)
        XCTAssertEqual(readdirNames(mount.path("videos")), ["20240601_120000.mp4"], "still in no flat view")
        XCTAssertEqual(unlink(path), 0)
        XCTAssertTrue(eventually(10) { readdirNames(day) == nil }, "\(readdirNames(day) ?? [])")
    }

    /// `-o desktop_thumbnails`: a listed day folder gets its still's thumbnails and none for the
    /// video (a part of the still's file), and nothing fails.
    func testDesktopThumbnailsAreMadeForTheStillAlone() throws {
        let home = makeTempFolder("motion-desktop")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let mount = try Mount(source: folder, options: ["-o", "desktop_thumbnails"], launcher: ["/usr/bin/env", "XDG_CACHE_HOME=" + home])
        defer { mount.finish() }
        let day = mount.path(fixtures["pixel"]!.day)
        let names = try XCTUnwrap(readdirNames(day))
        XCTAssertEqual(names.count, 2)
        let video = try XCTUnwrap(names.first { $0.hasSuffix(".mp4") }), still = try XCTUnwrap(names.first { !$0.hasSuffix(".mp4") })
        // The freedesktop name: the MD5 of the entry's file:// URI (the test's paths need no escaping).
        let png = { (name: String, size: String) in
            home + "/thumbnails/\(size)/" + runCommand("/usr/bin/python3", ["-c", "import hashlib,sys; print(hashlib.md5(sys.argv[1].encode()).hexdigest(), end='')",
                                                                       "file://" + day + "/" + name]).stdout + ".png"
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: png(still, "normal")), "the still's, written before its listing was answered")
        let status = { daemonStatus(mount.mountpoint) }
        XCTAssertTrue(eventually(60) { FileManager.default.fileExists(atPath: png(still, "large")) && status()["desktop_thumbnails_ahead"]?.hasSuffix("done") == true },
                      "\(status())")
        XCTAssertFalse(FileManager.default.fileExists(atPath: png(video, "normal")), "none for the video")
        XCTAssertFalse(FileManager.default.fileExists(atPath: png(video, "large")), "none for the video")
        XCTAssertTrue(status()["desktop_thumbnails"]?.contains(" 0 failed") == true, "\(status())")
    }

    // MARK: Helpers

    /// The entry of `f`'s video in its day folder, as its still's attribute names it.
    func videoEntry(of f: Fixture, in mount: Mount) -> String? {
        let still = mount.path(f.day + "/" + (f.path as NSString).lastPathComponent)
        return xattr(still, "user.albumfs.motion_photo").map { ($0 as NSString).lastPathComponent }
    }

    func range(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }

    /// What ffprobe makes of a video, decoding it whole: codec, frame size, frames decoded.
    func ffprobeFrames(_ path: String) -> String {
        let out = runCommand("/usr/bin/ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                                  "stream=codec_name,width,height,nb_read_frames", "-of", "csv=p=0", path])
        XCTAssertEqual(out.status, 0, out.stderr)
        return out.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What exiftool reads of a video: its codec, frame size and duration.
    func exiftoolVideo(_ path: String, write bytes: [UInt8]? = nil) throws -> String {
        if let bytes { XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes))) }
        defer { if bytes != nil { try? FileManager.default.removeItem(atPath: path) } }
        let out = runCommand("/usr/bin/exiftool", ["-s3", "-n", "-Track1:CompressorID", "-Track1:ImageWidth", "-Track1:ImageHeight",
                                                   "-QuickTime:Duration", path])
        XCTAssertEqual(out.status, 0, out.stderr)
        XCTAssertEqual(out.stdout.split(separator: "\n"), ["avc1", "96", "64", "0.4"], "H.264, 96x64, 0.4 s: \(path)")
        return out.stdout
    }
}
