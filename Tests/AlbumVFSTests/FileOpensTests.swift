import AlbumCore
import AlbumSystem
@testable import AlbumVFS
import Foundation
import Glibc
import XCTest

/// `FileOpens`: an original's open, and only an original's, runs under the caller's storage wait
/// (the FUSE adapter's `-o source_timeout`); an open the wait answered itself leaves nothing open.
final class FileOpensTests: XCTestCase {
    /// Counts its runs; when `answers` is false it answers the request itself after the work, as
    /// the watchdog does past a deadline, and hands what the work made to `late`.
    final class CountingWait: StorageWait {
        var runs = 0
        let answers: Bool
        init(answers: Bool) { self.answers = answers }

        func run(_ work: () -> Result<OpenedFile, Errno>, late: (Result<OpenedFile, Errno>) -> Void) -> Result<OpenedFile, Errno>? {
            runs += 1
            let made = work()
            guard answers else {
                late(made)
                return nil
            }
            return made
        }
    }

    var folder: String!
    var fs: AlbumFileSystem!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "albumfs-opens-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/a.jpg", contents: Data("AAAA".utf8)))
        var st = stat()
        XCTAssertEqual(stat(folder + "/a.jpg", &st), 0)
        let time = CaptureTime(local: Timestamp(seconds: 2_000).local(offsetSeconds: 0), utcOffsetSeconds: 0)
        let photo = Photo(relativePath: "a.jpg", format: .jpeg,
                          identity: FileIdentity(inode: UInt64(st.st_ino), size: Int64(st.st_size), mtime: Timestamp(st.st_mtim)),
                          decisions: PhotoDecisions(capture: CaptureDecision(time: time, source: .exifDateTimeOriginal),
                                                    captureInstant: Timestamp(seconds: 2_000),
                                                    screenshot: ScreenshotDecision(isScreenshot: false, reason: "t")),
                          changedWhenRead: Timestamp(st.st_ctim))
        fs = try AlbumFileSystem(library: LibraryViews.build(photos: [photo], ViewSettings(thumbnailBoxes: [.default], withStatus: true,
                                                                                            emptyMtime: Timestamp(seconds: 0))),
                                 sourceRoot: folder, owner: Owner(uid: 7, gid: 8), log: { _ in })
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    func ino(_ path: String) throws -> UInt64 {
        try path.split(separator: "/").reduce(UInt64(1)) { try fs.lookup(parent: $0, name: String($1)).get().inode }
    }

    func testOnlyAnOriginalsOpenRunsUnderTheStorageWait() throws {
        let wait = CountingWait(answers: true)
        let original = try XCTUnwrap(fs.open(try ino("non-screenshots/a.jpg"), flags: O_RDONLY, storage: wait)).get()
        XCTAssertEqual(original.reads, .source)
        XCTAssertEqual(wait.runs, 1, "the original's open waited on the storage under the wait")
        var opened = [original.handle]
        for path in ["thumbnails/200x200/a.jpg", ".albumfs/status", "filter/README.txt"] {
            opened.append(try XCTUnwrap(fs.open(try ino(path), flags: O_RDONLY, storage: wait)).get().handle)
        }
        XCTAssertEqual(wait.runs, 1, "thumbnails and texts wait on no storage at open")
        XCTAssertEqual(fs.open(try ino("non-screenshots/a.jpg"), flags: O_WRONLY, storage: wait)?.failure, .readOnlyFileSystem)
        XCTAssertEqual(wait.runs, 2, "an original's write intent is answered under the wait too, as a stalled storage answers EIO first")
        for handle in opened { fs.release(handle) }
        XCTAssertEqual(fs.openFileCount, 0)
    }

    func testAnOpenTheWaitAnsweredItselfLeavesNothingOpen() throws {
        let wait = CountingWait(answers: false)
        XCTAssertNil(fs.open(try ino("non-screenshots/a.jpg"), flags: O_RDONLY, storage: wait), "the wait answered the request")
        XCTAssertEqual(wait.runs, 1)
        XCTAssertEqual(fs.openFileCount, 0, "the late open's handle was let go")
        let thumbnail = try XCTUnwrap(fs.open(try ino("thumbnails/200x200/a.jpg"), flags: O_RDONLY, storage: wait)).get()
        XCTAssertEqual(fs.openFileCount, 1, "a thumbnail's open is answered by the filesystem")
        fs.release(thumbnail.handle)
    }
}
