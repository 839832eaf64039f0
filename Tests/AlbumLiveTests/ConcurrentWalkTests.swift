import AlbumCore
@testable import AlbumLive
import AlbumMetadata
import Foundation
import XCTest

/// A scan's walk on its own thread: the bounded queue it hands read batches into.
final class ConcurrentWalkTests: XCTestCase {
    var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "albumfs-walk-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    /// The walk hands batches into a bounded queue: while the first batch's merge is held, a walk
    /// allowed one batch ahead hands the readers that batch and the one it waits to queue, no
    /// more; once the merges go on, every file is merged, in one scan.
    func testAWalkWaitsWhileItsQueueIsFull() throws {
        let count = 4 * LibraryScanner.readBatch
        for f in 0..<4 {
            try FileManager.default.createDirectory(atPath: "\(folder!)/f\(f)", withIntermediateDirectories: true)
            for i in 0..<LibraryScanner.readBatch { XCTAssertTrue(FileManager.default.createFile(atPath: "\(folder!)/f\(f)/\(i).jpg", contents: nil)) }
        }
        let pipeline = ScanPipeline(scanner: LibraryScanner(root: folder, rules: ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000)))), index: nil)
        let handedIn = HandedIn()
        var request = ScanRequest(folder: "", writer: IndexWriter(index: nil, log: { _ in }), moveLookup: nil)
        request.progress = { done, total in handedIn.note(done: done, total: total) }
        request.batchesAhead = 1
        let run = pipeline.start(request)
        var handedWhileHeld: [(Bool, Bool)] = []
        var merged = 0
        while let batch = run.next() {
            if merged == 0 {
                // (The batch merging, the one queued, the one the walk waits to queue: three.)
                handedWhileHeld.append((handedIn.wait(for: 3 * LibraryScanner.readBatch, seconds: 10), handedIn.wait(for: count, seconds: 2)))
            }
            merged = batch.merged
        }
        let delta = run.finish().delta
        XCTAssertEqual(handedWhileHeld.map(\.0), [true], "three batches handed to the readers while the first merged")
        XCTAssertEqual(handedWhileHeld.map(\.1), [false], "the walk waited for room in its queue")
        XCTAssertEqual(merged, 4)
        XCTAssertEqual(delta.added.count, count)
        XCTAssertEqual(pipeline.known.photoCount, count)
    }
}
