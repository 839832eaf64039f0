import AlbumCore
@testable import AlbumLive
import XCTest

final class LibraryStateTests: XCTestCase {
    func photo(_ path: String, size: Int64 = 1) -> Photo {
        let time = CaptureTime(local: LocalDateTime(year: 2024, month: 1, day: 1), utcOffsetSeconds: 0)
        return Photo(relativePath: path, format: .jpeg, identity: FileIdentity(device: 1, inode: 1, size: size, mtime: Timestamp(seconds: 0)),
                     capture: CaptureDecision(time: time, source: .exifDateTimeOriginal), captureInstant: Timestamp(seconds: 0),
                     screenshot: ScreenshotDecision(isScreenshot: false, reason: "t"), orientation: 1, problems: [])
    }

    func testSetReplaceAndRemoveKeepTheArrayDenseAndTheMapRight() {
        var store = PhotoStore()
        for name in ["a", "b", "c", "d"] { store.set(name, photo(name)) }
        store.set("b", photo("b", size: 7))
        XCTAssertEqual(store.count, 4)
        XCTAssertEqual(store.photos.first { $0.relativePath == "b" }?.identity.size, 7, "replaced in place")
        store.set("a", nil)  // the last photo moves into the hole
        store.set("x", nil)  // unknown: nothing happens
        XCTAssertEqual(Set(store.photos.map(\.relativePath)), ["b", "c", "d"])
        store.set("d", nil)
        store.set("c", photo("c", size: 3))
        XCTAssertEqual(store.photos.map(\.relativePath).sorted(), ["b", "c"])
        XCTAssertEqual(store.photos.first { $0.relativePath == "c" }?.identity.size, 3, "the moved photo's position was updated")
        store.set("b", nil)
        store.set("c", nil)
        XCTAssertEqual(store.count, 0)
    }

    func testTheViewsShareTheStoresArray() {
        var store = PhotoStore()
        for i in 0..<100 { store.set("p\(i)", photo("p\(i)")) }
        let library = LibraryViews.build(photos: store.photos, emptyMtime: Timestamp(seconds: 0))
        library.photos.withUnsafeBufferPointer { a in
            store.photos.withUnsafeBufferPointer { b in XCTAssertEqual(a.baseAddress, b.baseAddress, "no copy per publish") }
        }
    }

    func testProblemsComeFromTheDecisionsSoSlimRecordsKeepThem() {
        var state = LibraryState()
        let identity = FileIdentity(device: 1, inode: 2, size: 3, mtime: Timestamp(seconds: 0))
        var broken = photo("a/broken.jpg")
        broken.problems = ["corrupt EXIF"]
        var evidence = PhotoEvidence()
        evidence.problems = ["corrupt EXIF"]
        let file = IndexedFile(relativePath: "a/broken.jpg", identity: identity, kind: .photo(.jpeg, evidence))
        state.put(file.slimmed, photo: broken)
        state.put(IndexedFile(relativePath: "a/notes.jpg", identity: identity, kind: .problem("not a JPEG or PNG")), photo: nil)
        XCTAssertEqual(state.report().problems.map { "\($0.relativePath): \($0.message)" },
                       ["a/broken.jpg: corrupt EXIF", "a/notes.jpg: not a JPEG or PNG"])
        XCTAssertEqual(state.files["a/broken.jpg"], file.slimmed, "no evidence kept in memory")
        // Fixed: the line goes.
        state.put(file.slimmed, photo: photo("a/broken.jpg"))
        state.drop("a/notes.jpg")
        XCTAssertEqual(state.report().problems.count, 0)
        XCTAssertEqual(state.photoCount, 1)
    }
}
