import AlbumCore
@testable import AlbumLive
import AlbumMetadata
import AlbumSample
import Foundation
import XCTest

/// One folder's scan under way: its merges, as the walk's state allows them.
final class ScanRunTests: XCTestCase {
    var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "albumfs-run-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    func write(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: folder + "/" + path.folderBeforeLastSlash, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/" + path, contents: Data(try SampleJPEG.jpeg(.marker(width: 64, height: 48)))))
    }

    func scan(_ pipeline: ScanPipeline) -> ScanDelta {
        let writer = IndexWriter(index: nil, log: { _ in })
        return pipeline.scan(ScanRequest(folder: "", writer: writer, moveLookup: pipeline.moveLookup(saving: writer))).delta
    }

    /// A rescan (files known) merges as a first scan does: a batch is merged while its walk goes
    /// on (the walk asks a snapshot of what was known when it began, which the merges do not
    /// change), and no more than the walk's `capacity` batches wait to be merged. Every file
    /// read is merged, as added, and what was known stays.
    func testARescanMergesABatchWhileItsWalkGoesOn() throws {
        try write("known.jpg")
        let pipeline = ScanPipeline(scanner: LibraryScanner(root: folder, rules: ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000)))), index: nil)
        XCTAssertEqual(scan(pipeline).added, ["known.jpg"])
        let count = 3 * LibraryScanner.readBatch
        for f in 0..<3 {
            try FileManager.default.createDirectory(atPath: "\(folder!)/f\(f)", withIntermediateDirectories: true)
            for i in 0..<LibraryScanner.readBatch { XCTAssertTrue(FileManager.default.createFile(atPath: "\(folder!)/f\(f)/\(i).jpg", contents: nil)) }
        }
        let handedIn = HandedIn()
        let writer = IndexWriter(index: nil, log: { _ in })
        var request = ScanRequest(folder: "", writer: writer, moveLookup: pipeline.moveLookup(saving: writer))
        request.batchesAhead = 1
        request.progress = { done, total in handedIn.note(done: done, total: total) }
        // (At the last folder two whole folders were found before it, a batch handed, and the
        // walk waits up to 10 s for a merge: a rescan that merged only once its walk had ended
        // would not merge before the wait runs out.)
        let mergedWhileWalking = Shared<[Bool]>([])
        let firstMerge = DispatchSemaphore(value: 0)
        let folders = Shared(0)
        request.onFolder = { _ in
            folders.mutate { $0 += 1 }
            guard folders.value == 4 else { return }  // vacuous-ok: the closure acts at the last folder only; mergedWhileWalking below asserts it did
            let handed = handedIn.wait(for: LibraryScanner.readBatch, seconds: 10)
            mergedWhileWalking.mutate { $0.append(handed && firstMerge.wait(timeout: .now() + 10) == .success) }
        }
        let run = pipeline.start(request)
        var walkDoneAtEachMerge: [Bool] = []
        var mostWaiting = 0
        while let batch = run.next() {
            walkDoneAtEachMerge.append(batch.walkDone)
            mostWaiting = max(mostWaiting, batch.batches - batch.merged)
            firstMerge.signal()
        }
        XCTAssertEqual(mergedWhileWalking.value, [true], "a batch merged while the walk went on")
        let delta = run.finish().delta
        XCTAssertEqual(folders.value, 4, "the library's folder and its three")
        XCTAssertEqual(walkDoneAtEachMerge.count, 3)
        XCTAssertEqual(walkDoneAtEachMerge.first, false, "the first batch merged before the walk ended")
        XCTAssertLessThanOrEqual(mostWaiting, 1, "no more batches waiting than the walk's capacity")
        XCTAssertEqual(delta.added.count, count)
        XCTAssertEqual(delta.changed, [])
        XCTAssertEqual(pipeline.known.fileCount, count + 1)
        XCTAssertTrue(pipeline.known.knows("known.jpg"))
    }
}
