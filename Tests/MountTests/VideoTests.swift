import AlbumCore
import AlbumSample
import Foundation
import XCTest

/// A phone library's videos through the mount: the views, bytes, thumbnails (upright, in
/// colour), a remount that reads nothing, a video added while mounted, a pick of one.
final class VideoTests: XCTestCase {
    var source: SampleSource!

    override func setUpWithError() throws { source = try SampleSource() }
    override func tearDown() { source?.remove() }

    func testVideosAreListedNewestFirstReadWholeAndTheirThumbnailsUpright() throws {
        let mount = try Mount(source: source.path)
        let expected = source.items.filter { $0.expectedVideo && $0.expectedLivePartner == nil && $0.expectedDay != nil }
        let names = try XCTUnwrap(readdirNames(mount.path("videos")))
        XCTAssertEqual(Set(names), Set(expected.map { String($0.path.split(separator: "/").last!) }))
        let times = names.map { statOf(mount.path("videos/" + $0))!.st_mtim.tv_sec }
        XCTAssertEqual(times, times.sorted(by: >), "newest first")
        for item in expected {
            let name = String(item.path.split(separator: "/").last!)
            XCTAssertEqual(try readFile(mount.path("videos/" + name)).get(), item.bytes, name)
            XCTAssertEqual(xattr(mount.path("videos/" + name), "user.albumfs.format"), "video", name)
        }
        XCTAssertNil(statOf(mount.path("videos/voice.m4a")), "sound alone is no video")
        // The iPhone's portrait clip, stored sideways and turned by its track: upright.
        XCTAssertEqual(xattr(mount.path("videos/IMG_1401.MOV"), "user.albumfs.orientation"), "6")
        try assertMarkerUpright(mount.path("thumbnails/200x200/IMG_1401.jpg"), "IMG_1401.MOV")
        try assertMarkerUpright(mount.path("thumbnails/200x200/VID_clip.jpg"), "VID_clip.mp4")
        // A Live Photo's motion part: the frame at its still's moment, not its turned-round opening.
        let motion = try XCTUnwrap(readdirNames(mount.path("thumbnails/200x200")))
            .first { xattr(mount.path("thumbnails/200x200/" + $0), "user.albumfs.source")?.hasSuffix("/iPhone/IMG_1402.MOV") == true }
        try assertMarkerUpright(mount.path("thumbnails/200x200/" + (motion ?? "none")), "IMG_1402.MOV at its still-image-time")
        XCTAssertNil(statOf(mount.path("thumbnails/200x200/cut.jpg")), "a clip cut short: nothing to render, no entry")
        XCTAssertNotNil(statOf(mount.path("videos/cut.MOV")), "listed among the videos, its damage in its attributes")
        mount.finish()
    }

    /// A video's thumbnail has the video's colours (its YUV matrix and range applied).
    func testAVideoThumbnailKeepsItsColour() throws {
        let colours: [(String, UInt8, UInt8, UInt8)] = [("orange", 230, 120, 40), ("teal", 30, 140, 150)]
        for (name, r, g, b) in colours {
            let clip = try SampleVideo.video(.solid(width: 320, height: 240, r, g, b), container: .mp4)
            try SampleLibrary.writeFile(source.path + "/Colours/\(name).mp4", clip, mtime: SampleLibrary.defaultMtime)
        }
        let mount = try Mount(source: source.path)
        for (name, r, g, b) in colours {
            let image = try XCTUnwrap(DecodedImage(jpeg: try readFile(mount.path("thumbnails/200x200/\(name).jpg")).get()))
            let mean = image.meanColour
            for (got, want) in [(mean.0, r), (mean.1, g), (mean.2, b)] {
                XCTAssertEqual(got, Double(want), accuracy: 8, "\(name): \(mean)")
            }
        }
        mount.finish()
    }

    /// The index keeps videos as it keeps photos: a remount reads no file again.
    func testARemountReadsNoUnchangedVideo() throws {
        let first = try Mount(source: source.path)
        XCTAssertGreaterThan(Int(daemonStatus(first.mountpoint)["header_reads"] ?? "") ?? 0, 0)
        first.finish()
        let second = try Mount(source: source.path)
        XCTAssertEqual(daemonStatus(second.mountpoint)["header_reads"], "0")
        XCTAssertEqual(xattr(second.path("videos/IMG_1401.MOV"), "user.albumfs.date_source"), "quicktime:com.apple.quicktime.creationdate")
        XCTAssertEqual(xattr(second.path("by-date/2024/2024-05/2024-05-20/IMG_1402.JPG"), "user.albumfs.live_photo"),
                       "by-date/2024/2024-05/2024-05-20/IMG_1402.MOV", "the pair known from the index alone")
        second.finish()
    }

    /// A video copied in while mounted shows in `videos/` and `by-date/`; one can be picked.
    func testAVideoAddedWhileMountedShowsAndCanBePicked() throws {
        let mount = try Mount(source: source.path)
        let clip = try SampleVideo.video(.marker(width: 64, height: 48), container: .mp4, metadata: [("creation_time", "2019-02-03T12:00:00Z")])
        try SampleLibrary.writeFile(source.path + "/New/VID_new.mp4", clip, mtime: SampleLibrary.defaultMtime)
        XCTAssertTrue(eventually(10) { readdirNames(mount.path("videos"))?.contains("VID_new.mp4") ?? false })
        XCTAssertEqual(readdirNames(mount.path("by-date/2019/2019-02/2019-02-03")), ["VID_new.mp4"])
        XCTAssertEqual(symlink("../videos/VID_new.mp4", mount.path("picked/VID_new.mp4")), 0, String(cString: strerror(errno)))
        XCTAssertEqual(try readFile(mount.path("picked/VID_new.mp4")).get(), clip)
        mount.finish()
    }
}
