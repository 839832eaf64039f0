import AlbumCore
import AlbumMetadata
import AlbumSample
import AlbumSystem
@testable import AlbumLive
import AlbumVFS
import Foundation
import Glibc
import XCTest

/// `LibraryCoordinator.start`: what is to wait for the first scan (the render workers' start, in
/// a mount) runs once, on the coordinator's queue, after the first scan's tree is shown.
final class LibraryCoordinatorTests: XCTestCase {
    func testTheWorkAfterTheFirstScanRunsOnceItsTreeIsShown() throws {
        let root = NSTemporaryDirectory() + "albumfs-coordinator-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        XCTAssertEqual(mkdir(root, 0o755), 0)
        defer { try? FileManager.default.removeItem(atPath: root) }
        for i in 0..<3 {
            let jpeg = try SampleJPEG.jpeg(.marker(width: 64, height: 48, tint: UInt8(10 + 40 * i)))
            XCTAssertTrue(FileManager.default.createFile(atPath: root + "/p\(i).jpg", contents: Data(jpeg)))
        }
        let settings = ViewSettings(thumbnailBoxes: [], withStatus: true, emptyMtime: Timestamp(seconds: 0))
        let fs = try AlbumFileSystem(library: LibraryViews.build(photos: [], settings), sourceRoot: root,
                                     owner: Owner(uid: getuid(), gid: getgid()), log: { _ in })
        let scanner = LibraryScanner(root: root, rules: ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000))))
        let coordinator = LibraryCoordinator(CoordinatorParts(scanner: scanner, index: nil, fs: fs,
                                                              options: CoordinatorOptions(thumbnailBoxes: [], rescanInterval: 0, maxWatches: nil),
                                                              log: { _ in }))
        defer { coordinator.stop() }
        let ran = Locked<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        coordinator.start(known: LibraryState(), invalidate: { _ in }, afterFirstScan: {
            ran.withLock { $0.append(fs.library.filePhotoCount) }
            done.signal()
        })
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success, "it ran")
        XCTAssertTrue(coordinator.waitForFirstScan(seconds: 0), "after the first scan ended")
        XCTAssertEqual(ran.withLock { $0 }, [3], "once, the first scan's photos shown")
    }
}
