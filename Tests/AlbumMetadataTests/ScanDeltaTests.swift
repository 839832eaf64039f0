import AlbumCore
@testable import AlbumMetadata
import XCTest

/// `ScanDelta`: what a scan changed against what was known before it, as `albumfs index` says it.
final class ScanDeltaTests: XCTestCase {
    private func file(_ path: String, inode: UInt64 = 1) -> IndexedFile {
        IndexedFile(relativePath: path, identity: FileIdentity(inode: inode, size: 10, mtime: Timestamp(seconds: 1)), kind: .ignored)
    }

    func testADeltaSaysWhatIsNewChangedMovedAndGone() {
        let known = ["a/keep.jpg", "a/changed.jpg", "a/deleted.jpg", "old/moved.jpg", "old/replaced.jpg", "locked/x.jpg", "b/other.jpg"]
        let survey = LibraryScanner.Survey(
            reused: [file("a/keep.jpg")],
            moved: [LibraryScanner.MovedFile(from: "old/moved.jpg", file: file("new/moved.jpg", inode: 7), photo: nil),
                    LibraryScanner.MovedFile(from: "old/replaced.jpg", file: file("new/replaced.jpg", inode: 8), photo: nil)],
            toRead: [], deferred: ["a/writing.jpg"], folderProblems: [], unlisted: ["locked"])
        // A file read at the old path of a moved one: a new file there, which keeps that path.
        let read = ["a/changed.jpg", "a/new.jpg", "old/replaced.jpg"]
        let delta = ScanDelta(survey, read: read, under: "", known: known) { known.contains($0) }
        XCTAssertEqual(delta.added, ["a/new.jpg"])
        XCTAssertEqual(delta.changed, ["a/changed.jpg", "old/replaced.jpg"])
        XCTAssertEqual(delta.moved, [FileMove(from: "old/moved.jpg", to: "new/moved.jpg", identity: file("", inode: 7).identity),
                                     FileMove(from: "old/replaced.jpg", to: "new/replaced.jpg", identity: file("", inode: 8).identity)])
        // Below a folder that could not be listed: unknown, not gone. Outside the folder scanned: not looked at.
        XCTAssertEqual(delta.gone, ["a/deleted.jpg", "old/moved.jpg", "b/other.jpg"])
        XCTAssertEqual(ScanDelta.gone(known, under: "a", kept: ScanDelta.kept(survey, read: read), unlisted: []), ["a/deleted.jpg"])
        XCTAssertFalse(delta.isEmpty)
        let unchanged = LibraryScanner.Survey(reused: known.map { file($0) }, toRead: [], deferred: [], folderProblems: [], unlisted: [])
        XCTAssertTrue(ScanDelta(unchanged, read: [], under: "", known: known) { known.contains($0) }.isEmpty)
    }
}
