import AlbumCore
@testable import AlbumMetadata
@testable import AlbumLive
import XCTest

/// `ScanDelta`'s rule for what is gone: known below the folder scanned, found nowhere by the scan.
final class ScanDeltaTests: XCTestCase {
    private func file(_ path: String, inode: UInt64 = 1) -> IndexedFile {
        IndexedFile(relativePath: path, identity: FileIdentity(inode: inode, size: 10, mtime: Timestamp(seconds: 1)), kind: .ignored)
    }

    /// Kept: reused, found moved there, read, or still being written. Gone: the rest of what was
    /// known below the folder, but for what lies below a folder that could not be listed (unknown,
    /// not gone) or outside the folder (not looked at).
    func testWhatIsGoneIsWhatTheScanDidNotKeep() {
        let known = ["a/keep.jpg", "a/changed.jpg", "a/deleted.jpg", "a/writing.jpg", "old/moved.jpg", "old/replaced.jpg",
                     "locked/x.jpg", "b/other.jpg"]
        let survey = LibraryScanner.Survey(
            reused: [file("a/keep.jpg")],
            moved: [LibraryScanner.MovedFile(from: "old/moved.jpg", file: file("new/moved.jpg", inode: 7), photo: nil),
                    LibraryScanner.MovedFile(from: "old/replaced.jpg", file: file("new/replaced.jpg", inode: 8), photo: nil)],
            toRead: [], deferred: ["a/writing.jpg"], folderProblems: [], unlisted: ["locked"])
        // A file read at the old path of a moved one: a new file there, which keeps that path.
        let read = ["a/changed.jpg", "a/new.jpg", "old/replaced.jpg"]
        let kept = ScanDelta.kept(survey, read: read)
        XCTAssertEqual(kept, ["a/keep.jpg", "new/moved.jpg", "new/replaced.jpg", "a/writing.jpg", "a/changed.jpg", "a/new.jpg", "old/replaced.jpg"])
        XCTAssertEqual(ScanDelta.gone(known, under: "", kept: kept, unlisted: survey.unlisted), ["a/deleted.jpg", "old/moved.jpg", "b/other.jpg"])
        XCTAssertEqual(ScanDelta.gone(known, under: "a", kept: kept, unlisted: []), ["a/deleted.jpg"])
        XCTAssertEqual(ScanDelta.gone(known, under: "", kept: Set(known), unlisted: []), [])
        XCTAssertEqual(ScanDelta(added: ["x"], gone: ["y"]).summary, "1 added, 0 changed, 0 moved, 1 removed")
        XCTAssertTrue(ScanDelta().isEmpty)
    }
}
