import AlbumCore
import AlbumSystem
@testable import AlbumVFS
import Dispatch
import Foundation
import Glibc
import XCTest

/// `ThumbnailReads`: the kernel is told of a thumbnail that left its listing from the notifier's
/// pool, never from the thread whose read failed, and only for a failure from the content.
final class ThumbnailReadsTests: XCTestCase {
    /// The calling thread's name (`/proc/self/task/TID/comm`).
    static func threadName() -> String {
        let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "(unreadable)"
        return comm.trimmingCharacters(in: .newlines)
    }

    func photo(_ path: String, seconds: Int64) -> Photo {
        let time = CaptureTime(local: Timestamp(seconds: seconds).local(offsetSeconds: 0), utcOffsetSeconds: 0)
        return Photo(relativePath: path, format: .jpeg, identity: FileIdentity(inode: UInt64(seconds), size: 10, mtime: Timestamp(seconds: 0)),
                     decisions: PhotoDecisions(capture: CaptureDecision(time: time, source: .exifDateTimeOriginal),
                                               captureInstant: Timestamp(seconds: seconds),
                                               screenshot: ScreenshotDecision(isScreenshot: false, reason: "t")))
    }

    func testTheKernelIsToldFromThePoolThatAThumbnailLeftItsListing() throws {
        let thumbnails = HiddenThumbnailsTests.FailingThumbnails()
        let library = LibraryViews.build(photos: [photo("good.jpg", seconds: 2_000), photo("bad.jpg", seconds: 1_000)],
                                         ViewSettings(thumbnailBoxes: [.default], emptyMtime: Timestamp(seconds: 0)))
        let fs = try AlbumFileSystem(library: library, sourceRoot: "/nowhere",
                                     owner: Owner(uid: 7, gid: 8), services: FileSystemServices(thumbnails: thumbnails), log: { _ in })
        let pool = WorkerPool(name: "albumfs-notice", width: 1, idleSeconds: nil)
        let told = Locked<[(changes: TreeChanges, thread: String)]>([])
        let arrived = DispatchSemaphore(value: 0)
        fs.setInvalidator(pool: pool) { changes in
            told.withLock { $0.append((changes, Self.threadName())) }
            arrived.signal()
        }
        let box = try fs.lookup(parent: try fs.lookup(parent: 1, name: "thumbnails").get().inode, name: "200x200").get().inode
        var buffer = [UInt8](repeating: 0, count: 8)
        let good = try fs.open(try fs.lookup(parent: box, name: "good.jpg").get().inode, flags: O_RDONLY).get()
        XCTAssertEqual(try buffer.withUnsafeMutableBytes { try fs.read(good.handle, at: 0, into: $0).get() }, 3)
        let bad = try fs.open(try fs.lookup(parent: box, name: "bad.jpg").get().inode, flags: O_RDONLY).get()
        XCTAssertEqual(buffer.withUnsafeMutableBytes { fs.read(bad.handle, at: 0, into: $0).failure }, .ioError)
        XCTAssertEqual(arrived.wait(timeout: .now() + 10), .success, "the kernel was told")
        // (The pool runs one job at a time, in order: once a job queued now has run, nothing else
        // was queued before it.)
        let drained = DispatchSemaphore(value: 0)
        pool.submit(.interactive) { drained.signal() }
        XCTAssertEqual(drained.wait(timeout: .now() + 10), .success)
        let notices = told.withLock { $0 }
        XCTAssertEqual(notices.count, 1, "one notice: the good thumbnail's read told nothing")
        XCTAssertEqual(notices.first?.changes.removedEntries.map(\.parent), [box])
        XCTAssertEqual(notices.first?.changes.removedEntries.map(\.name), ["bad.jpg"])
        XCTAssertEqual(notices.first?.changes.changedInodes, [box])
        XCTAssertEqual(notices.first?.thread, "albumfs-notice", "told from the pool")
        XCTAssertNotEqual(Self.threadName(), "albumfs-notice")
        fs.release(good.handle)
        fs.release(bad.handle)
    }
}
