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

    /// A rescan (files known) merges nothing while its walk goes on: the walk asks a snapshot of
    /// what was known when it began, and the merges wait until it has ended and let it go. Its
    /// batches are read meanwhile, and every one is merged, as added.
    func testARescanMergesOnceItsWalkHasEnded() throws {
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
        request.progress = { done, total in handedIn.note(done: done, total: total) }
        // (Each folder entered once what was handed before it is read; at the third folder, one
        // whole folder's batch was handed before it, and the walk waits up to 3 s for a merge:
        // one that did not wait for the walk would come.)
        let readBeforeEachFolder = Shared<[Bool]>([])
        let mergedWhileWalking = Shared<[Bool]>([])
        let firstMerge = DispatchSemaphore(value: 0)
        request.onFolder = { _ in
            readBeforeEachFolder.mutate { $0.append(handedIn.waitUntilRead(seconds: 10)) }
            guard readBeforeEachFolder.value.count == 3 else { return }  // vacuous-ok: the closure acts at the third folder only; mergedWhileWalking below asserts it did
            let handed = handedIn.wait(for: LibraryScanner.readBatch, seconds: 10)
            mergedWhileWalking.mutate { $0.append(handed && firstMerge.wait(timeout: .now() + 3) == .success) }
        }
        let run = pipeline.start(request)
        var walkDoneAtEachMerge: [Bool] = []
        while let batch = run.next() {
            walkDoneAtEachMerge.append(batch.walkDone)
            firstMerge.signal()
        }
        XCTAssertEqual(mergedWhileWalking.value, [false], "no batch merged while the walk went on")
        let delta = run.finish().delta
        XCTAssertEqual(readBeforeEachFolder.value.count, 4, "the library's folder and its three")
        XCTAssertFalse(readBeforeEachFolder.value.contains(false), "\(readBeforeEachFolder.value)")
        XCTAssertEqual(walkDoneAtEachMerge, [true, true, true], "every batch merged once the walk had ended")
        XCTAssertEqual(delta.added.count, count)
        XCTAssertEqual(delta.changed, [])
        XCTAssertEqual(pipeline.known.fileCount, count + 1)
    }
}
