import AlbumCore
import AlbumSystem
@testable import AlbumThumbnails
import Foundation
import Synchronization
import XCTest

/// `Thumb::MTime` as albumfs writes and reads it back.
final class DesktopThumbnailsTests: XCTestCase {
    /// A thumbnail is current only for exactly its `Thumb::MTime` text (read to the end of its
    /// chunk, whatever bytes its CRC holds), never for a prefix or a longer one.
    func testAThumbnailIsCurrentForItsExactMTime() throws {
        let image = RGBImage(width: 2, height: 2, pixels: [UInt8](repeating: 128, count: 12))
        for mtime in ["1796472036", "1796472036.926327"] {
            let png = try PNGWriter.encode(image, text: [("Thumb::URI", "file:///a.jpg"), ("Thumb::MTime", mtime), ("Software", "albumfs")])
            XCTAssertTrue(DesktopThumbnails.isCurrent(png, mtime: mtime))
            XCTAssertFalse(DesktopThumbnails.isCurrent(png, mtime: "1796472036.926328"))
            XCTAssertFalse(DesktopThumbnails.isCurrent(png, mtime: "179647203"))
        }
        XCTAssertFalse(DesktopThumbnails.isCurrent(nil, mtime: "1"))
    }

    /// A listing's wait ends at its bound, once, from the bounds' thread, and counts as late; a
    /// wait its pass ended before is not ended again, nor counted; waits begun later end later.
    func testAListingsWaitEndsAtItsBoundOnceUnlessItsPassEndedIt() {
        let bounds = WaitBounds(seconds: 0.3)
        let ended = Locked<[(name: String, at: Date)]>([])
        let late = Atomic<Int>(0)
        let started = Date()
        let all = DispatchSemaphore(value: 0)
        let waiters = ["first", "ended by its pass", "second"].map { name in
            ReadyOnce {
                ended.withLock { $0.append((name, Date())) }
                all.signal()
            }
        }
        bounds.add(waiters[0]) { late.add(1, ordering: .relaxed) }
        bounds.add(waiters[1]) { late.add(1, ordering: .relaxed) }
        XCTAssertTrue(waiters[1].fire(), "its pass ends it first")
        usleep(100_000)
        bounds.add(waiters[2]) { late.add(1, ordering: .relaxed) }
        for _ in 0..<3 { XCTAssertEqual(all.wait(timeout: .now() + 10), .success, "every wait ended") }
        XCTAssertEqual(all.wait(timeout: .now() + 0.5), .timedOut, "no wait ended twice")
        let seen = ended.withLock { $0 }
        XCTAssertEqual(seen.map(\.name), ["ended by its pass", "first", "second"])
        XCTAssertGreaterThanOrEqual(seen[1].at.timeIntervalSince(started), 0.29, "the first ended at its bound, not before")
        XCTAssertGreaterThanOrEqual(seen[2].at.timeIntervalSince(started), 0.39, "the second's bound began with it")
        XCTAssertLessThan(seen[2].at.timeIntervalSince(started), 5)
        XCTAssertEqual(late.load(ordering: .relaxed), 2, "the two ended by the bound count as late")
        XCTAssertFalse(waiters[0].fire(), "a wait ended is ended once")
    }
}
