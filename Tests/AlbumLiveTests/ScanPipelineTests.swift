import AlbumCore
@testable import AlbumLive
import AlbumMetadata
import AlbumSample
import Foundation
import XCTest

/// The scan pipeline on a folder of real files: survey, read, merge, and the delta each scan
/// reports against what the scans before it found.
final class ScanPipelineTests: XCTestCase {
    var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "albumfs-pipeline-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    func write(_ path: String, width: Int = 64) throws {
        try FileManager.default.createDirectory(atPath: folder + "/" + path.folderBeforeLastSlash, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/" + path, contents: Data(try SampleJPEG.jpeg(.marker(width: width, height: 48)))))
    }

    func scan(_ pipeline: ScanPipeline, _ under: String = "", named: Set<String> = []) -> ScanDelta {
        let writer = IndexWriter(index: nil, log: { _ in })
        var request = ScanRequest(folder: under, writer: writer, moveLookup: pipeline.moveLookup(saving: writer))
        request.named = named
        return pipeline.scan(request).delta
    }

    /// A first scan adds everything; then a file changed, one added, one deleted and a folder
    /// renamed (its files found by identity, unread) are each told as such, and what is known
    /// follows; an unchanged library changes nothing; a folder's scan looks at nothing outside it.
    func testEachScanSaysWhatChangedAndKnownFollows() throws {
        let first = ["a/keep.jpg", "a/changed.jpg", "a/deleted.jpg", "old/one.jpg", "old/two.jpg", "b/other.jpg"]
        for path in first { try write(path) }
        let pipeline = ScanPipeline(scanner: LibraryScanner(root: folder, rules: ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000)))), index: nil)
        let added = scan(pipeline)
        XCTAssertEqual(added.added.sorted(), first.sorted())
        XCTAssertEqual(added.changed + added.gone, [])
        XCTAssertEqual(pipeline.known.photoCount, 6)

        try write("a/changed.jpg", width: 96)
        try write("a/new.jpg")
        XCTAssertEqual(unlink(folder + "/a/deleted.jpg"), 0)
        XCTAssertEqual(rename(folder + "/old", folder + "/new"), 0)
        let delta = scan(pipeline)
        XCTAssertEqual(delta.added, ["a/new.jpg"])
        XCTAssertEqual(delta.changed, ["a/changed.jpg"])
        XCTAssertEqual(delta.moved.map { "\($0.from) -> \($0.to)" }.sorted(), ["old/one.jpg -> new/one.jpg", "old/two.jpg -> new/two.jpg"])
        XCTAssertEqual(delta.gone.sorted(), ["a/deleted.jpg", "old/one.jpg", "old/two.jpg"])
        XCTAssertNil(pipeline.known.known("old/one.jpg"))
        XCTAssertNotNil(pipeline.known.known("new/one.jpg"))
        XCTAssertEqual(pipeline.known.photoCount, 6)
        XCTAssertEqual(pipeline.known.report().photos.map { $0.relativePath }.sorted(),
                       ["a/changed.jpg", "a/keep.jpg", "a/new.jpg", "b/other.jpg", "new/one.jpg", "new/two.jpg"])

        XCTAssertTrue(scan(pipeline).isEmpty, "nothing changed")
        XCTAssertEqual(unlink(folder + "/b/other.jpg"), 0)
        XCTAssertTrue(scan(pipeline, "a").isEmpty, "b/ is not looked at")
        XCTAssertEqual(scan(pipeline, "b").gone, ["b/other.jpg"])

        // A folder's scan with as many files as before, one gone and one new (the counts agree
        // only before the new one is merged), and with a subfolder gone.
        try write("a/sub/x.jpg")
        XCTAssertEqual(scan(pipeline, "a").added, ["a/sub/x.jpg"])
        XCTAssertEqual(unlink(folder + "/a/keep.jpg"), 0)
        try write("a/other.jpg")
        let swapped = scan(pipeline, "a")
        XCTAssertEqual(swapped.added, ["a/other.jpg"])
        XCTAssertEqual(swapped.gone, ["a/keep.jpg"])
        try FileManager.default.removeItem(atPath: folder + "/a/sub")
        XCTAssertEqual(scan(pipeline, "a").gone, ["a/sub/x.jpg"])
        XCTAssertEqual(pipeline.known.fileCount(under: "a"), 3)
        XCTAssertEqual(pipeline.known.fileCount, 5)
    }

    /// The files a folder's rescan finds gone, with the watcher's names of paths (looked at
    /// first) or without: named and gone, dropped; named and still there, kept; gone and not
    /// named, found all the same.
    func testFilesGoneAreFoundWhateverTheWatcherNamed() throws {
        let files = (0..<8).map { "a/IMG_\($0).jpg" } + ["b/x.jpg"]
        for path in files { try write(path) }
        let pipeline = ScanPipeline(scanner: LibraryScanner(root: folder, rules: ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000)))), index: nil)
        XCTAssertEqual(scan(pipeline).added.count, 9)
        XCTAssertEqual(unlink(folder + "/a/IMG_1.jpg"), 0)
        XCTAssertEqual(scan(pipeline, "a", named: ["a/IMG_1.jpg", "a/IMG_2.jpg", "b/x.jpg", "a/never.jpg"]).gone, ["a/IMG_1.jpg"])
        XCTAssertEqual(unlink(folder + "/a/IMG_3.jpg"), 0)
        XCTAssertEqual(unlink(folder + "/a/IMG_4.jpg"), 0)
        XCTAssertEqual(scan(pipeline, "a", named: ["a/IMG_3.jpg"]).gone.sorted(), ["a/IMG_3.jpg", "a/IMG_4.jpg"], "one named, one not")
        XCTAssertEqual(unlink(folder + "/a/IMG_5.jpg"), 0)
        XCTAssertEqual(scan(pipeline, "a").gone, ["a/IMG_5.jpg"], "none named")
        XCTAssertEqual(pipeline.known.report().photos.map(\.relativePath).sorted(), ["a/IMG_0.jpg", "a/IMG_2.jpg", "a/IMG_6.jpg", "a/IMG_7.jpg", "b/x.jpg"])
        XCTAssertEqual(pipeline.known.fileCount(under: "a"), 4)
    }

    /// A first scan's walk goes on while a batch merges (it asks what is known nothing): every
    /// file reaches the readers while the first merge is held, so a slow merge, or a tree shown
    /// meanwhile, never leaves the readers waiting for the walk. Then every file is merged.
    func testAFirstScansWalkHandsEveryFileOnWhileABatchMerges() throws {
        let count = 4 * LibraryScanner.readBatch
        for f in 0..<4 {
            try FileManager.default.createDirectory(atPath: "\(folder!)/f\(f)", withIntermediateDirectories: true)
            for i in 0..<LibraryScanner.readBatch { XCTAssertTrue(FileManager.default.createFile(atPath: "\(folder!)/f\(f)/\(i).jpg", contents: nil)) }
        }
        let pipeline = ScanPipeline(scanner: LibraryScanner(root: folder, rules: ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000)))), index: nil)
        let handedIn = HandedIn()
        let writer = IndexWriter(index: nil, log: { _ in })
        var request = ScanRequest(folder: "", writer: writer, moveLookup: pipeline.moveLookup(saving: writer))
        request.progress = { done, total in handedIn.note(done: done, total: total) }
        // (Each folder walked once what was handed before it is read: a merge waiting for the walk
        // would meet a batch read, and hold the walk.)
        let readBeforeEachFolder = Shared<[Bool]>([])
        request.onFolder = { _ in readBeforeEachFolder.mutate { $0.append(handedIn.waitUntilRead(seconds: 10)) } }
        var mergedWhileHeld: [Bool] = []
        let run = pipeline.start(request)
        while run.next() != nil {
            if mergedWhileHeld.isEmpty { mergedWhileHeld.append(handedIn.wait(for: count, seconds: 10)) }
        }
        let delta = run.finish().delta
        XCTAssertEqual(mergedWhileHeld, [true], "every file handed to the readers while the first batch merged")
        XCTAssertEqual(readBeforeEachFolder.value.count, 5, "the library's folder and its four")
        XCTAssertFalse(readBeforeEachFolder.value.contains(false), "each folder walked once what was handed before it was read: \(readBeforeEachFolder.value)")
        XCTAssertEqual(delta.added.count, count)
        XCTAssertEqual(pipeline.known.photoCount, count)
    }

}

/// The files a scan has handed to its readers so far, and read, as the readers' progress says.
final class HandedIn: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var done = 0
    private var total = 0

    func note(done: Int, total: Int) {
        condition.lock()
        self.done = max(self.done, done)
        self.total = max(self.total, total)
        condition.broadcast()
        condition.unlock()
    }

    /// Whether every file handed in so far was read within `seconds`.
    func waitUntilRead(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while done < total { if !condition.wait(until: deadline) { return false } }
        return true
    }

    /// Whether `count` files were handed in within `seconds`.
    func wait(for count: Int, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while total < count { if !condition.wait(until: deadline) { return total >= count } }
        return true
    }
}

/// A value shared with the walk's thread.
final class Shared<Value>: @unchecked Sendable {
    private let lock = NSLock()
    // Guarded by `lock`.
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}
