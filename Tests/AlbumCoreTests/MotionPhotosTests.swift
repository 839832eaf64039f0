@testable import AlbumCore
import XCTest

/// A motion photo's video as the views hold it: an entry made from its still, beside it in
/// `by-date/` alone, paired with it, its range packed in the photo's pairing field.
final class MotionPhotosTests: XCTestCase {
    func still(_ path: String, size: Int64, range: ByteRange?) -> Photo {
        var p = makePhoto(path, (2023, 10, 10, 8))
        p.identity.size = size
        p.motionVideo = range
        return p
    }

    func testTheRangeIsPackedBesideTheFileSizeAndALiveIdentifierStaysApart() {
        for range in [ByteRange(offset: 100, length: 900), ByteRange(offset: 100, length: 800),
                      ByteRange(offset: 0, length: 1 << 40 - 1 - 0)] {
            let size = max(1_000, range.offset + range.length)
            XCTAssertEqual(still("a.jpg", size: size, range: range).motionVideo, range)
        }
        XCTAssertNil(still("a.jpg", size: 10_000_000, range: ByteRange(offset: 0, length: 100)).motionVideo, "8 MiB after the video: not held")
        XCTAssertNil(still("a.jpg", size: 1_000, range: ByteRange(offset: 900, length: 200)).motionVideo, "past the end: not held")
        var p = still("a.jpg", size: 1_000, range: ByteRange(offset: 100, length: 900))
        XCTAssertEqual(p.liveIdentifier, 0)
        let key = LivePhotos.identifierKey("8D1A2C3E-4F5B-4C6D-9E7F-0A1B2C3D4E5F")
        XCTAssertLessThan(key, 1 << 63)
        p.liveIdentifier = key
        XCTAssertNil(p.motionVideo)
        XCTAssertEqual(p.liveIdentifier, key)
        p.motionVideo = ByteRange(offset: 100, length: 900)
        XCTAssertEqual(p.liveIdentifier, 0)
        XCTAssertLessThanOrEqual(MemoryLayout<Photo>.stride, 160, "the range takes no byte of its own: it shares the Live Photo identifier's")
    }

    func testTheVideoIsBesideItsStillInByDateAloneAndPairedWithIt() throws {
        let motion = still("Phone/PXL_1.MP.jpg", size: 5_000, range: ByteRange(offset: 3_000, length: 2_000))
        let plain = makePhoto("Phone/IMG_2.jpg", (2023, 10, 10, 9))
        let clip = makePhoto("Phone/PXL_1.MP.mp4", (2023, 10, 10, 8))  // a real file of the name it wants
        let library = LibraryViews.build(photos: [motion, plain, clip],
                                         ViewSettings(thumbnailBoxes: [ThumbnailBox(width: 200, height: 200)!], emptyMtime: Timestamp(seconds: 0)))
        XCTAssertEqual(library.photos.count, 4)
        XCTAssertEqual(library.filePhotoCount, 3)
        let video = library.photos[3]
        XCTAssertTrue(video.isEmbeddedVideo)
        XCTAssertEqual(video.relativePath, "Phone/PXL_1.MP.jpg/PXL_1.MP.mp4")
        XCTAssertEqual(video.sourcePath, "Phone/PXL_1.MP.jpg")
        XCTAssertEqual(video.motionVideo, ByteRange(offset: 3_000, length: 2_000))
        XCTAssertEqual(video.identity, motion.identity)
        XCTAssertEqual(library.livePartners[0], 3)
        XCTAssertEqual(library.livePartners[3], 0)
        XCTAssertNil(library.livePartners[2], "the real video of the same stem is no Live Photo of a motion photo")
        let views = Dictionary(uniqueKeysWithValues: library.root.subfolders.map { ($0.name, $0) })
        let day = try XCTUnwrap(views["by-date"]?.subfolders.first?.subfolders.first?.subfolders.first)
        XCTAssertEqual(day.name, "2023-10-10")
        let names = day.children.map(\.name)
        XCTAssertEqual(names.count, 4)
        XCTAssertEqual(names.first, "IMG_2.jpg")
        XCTAssertTrue(names.contains("PXL_1.MP.mp4"), "the real file keeps its name: \(names)")
        XCTAssertTrue(names.contains { $0.hasPrefix("PXL_1.MP~") && $0.hasSuffix(".mp4") }, "\(names)")
        XCTAssertEqual(views["videos"]?.children.map(\.name), ["PXL_1.MP.mp4"])
        XCTAssertEqual(views["non-screenshots"]?.children.map(\.name), ["IMG_2.jpg", "PXL_1.MP.jpg"])
        XCTAssertEqual(views["thumbnails"]?.subfolders[0].count, 3, "no thumbnail of the video made from the still")
        XCTAssertEqual(Photo.fingerprint(library.photos), Photo.fingerprint([motion, plain, clip]))
    }
}
