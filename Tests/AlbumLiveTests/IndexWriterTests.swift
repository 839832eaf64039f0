import AlbumCore
import AlbumSystem
@testable import AlbumLive
import Foundation
import XCTest

/// The index writer writes batches in order on its own queue; the first failure (a full disk)
/// stops the writing for the scan, is logged once, and is what `finish` returns (`albumfs index`
/// exits with it).
final class IndexWriterTests: XCTestCase {
    /// A store that takes `room` saves, then fails like a full disk.
    final class FillingStore: FileIndexStore {
        private let state: Locked<(room: Int, saved: [[String]])>
        var saved: [[String]] { state.withLock { $0.saved } }

        init(room: Int) { state = Locked((room, [])) }

        func loadAll() throws(Errno) -> [IndexedFile] { [] }
        func forEach(_ body: (IndexedFile) -> Void) throws(Errno) {}
        func libraryDevice() throws(Errno) -> UInt64? { nil }
        func saveLibraryDevice(_ device: UInt64) throws(Errno) {}
        func files(sameAs files: [(path: String, identity: FileIdentity)]) throws(Errno) -> [IndexedFile?] { files.map { _ in nil } }
        func save(upserts: [IndexedFile], removals: [String]) throws(Errno) {
            try state.withLock { s throws(Errno) in
                guard s.room > 0 else { throw Errno(rawValue: ENOSPC) }
                s.room -= 1
                s.saved.append(upserts.map(\.relativePath) + removals.map { "-" + $0 })
            }
        }
        func save(moves: [FileMove]) throws(Errno) {
            try state.withLock { s throws(Errno) in
                guard s.room > 0 else { throw Errno(rawValue: ENOSPC) }
                s.room -= 1
                s.saved.append(moves.map { "\($0.from)>\($0.to)" })
            }
        }
    }

    private func files(_ names: String...) -> [IndexedFile] {
        names.map { IndexedFile(relativePath: $0, identity: FileIdentity(inode: 1, size: 2, mtime: Timestamp(seconds: 3)), kind: .ignored) }
    }

    func testBatchesAreWrittenInOrderThenTheRemovals() {
        let store = FillingStore(room: 10)
        let writer = IndexWriter(index: store, log: { _ in XCTFail("nothing to log") })
        writer.save(files("a", "b"))
        writer.save(files("c"))
        XCTAssertEqual(writer.finish(removing: ["old"]), .written)
        XCTAssertEqual(store.saved, [["a", "b"], ["c"], ["-old"]])
        writer.save(files("late"))
        XCTAssertNil(writer.finish(removing: []).failure)
        XCTAssertEqual(store.saved.count, 3, "nothing written after finishing")
    }

    /// Moves are written in their place among the batches, and count as pending until then.
    func testMovesAreWrittenInOrderWithTheBatches() {
        let store = FillingStore(room: 10)
        let queue = DispatchQueue(label: "test.writer")
        let pending = PendingRows()
        let writer = IndexWriter(index: store, log: { _ in XCTFail("nothing to log") }, queue: queue, pending: pending)
        let identity = FileIdentity(inode: 1, size: 2, mtime: Timestamp(seconds: 3))
        queue.suspend()
        writer.save(files("a"))
        writer.save(moves: [FileMove(from: "old/b", to: "new/b", identity: identity), FileMove(from: "old/c", to: "new/c", identity: identity)])
        writer.save(moves: [])
        XCTAssertEqual(pending.count, 3)
        queue.resume()
        XCTAssertEqual(writer.finish(removing: ["old/b", "old/c"]), .written)
        XCTAssertEqual(store.saved, [["a"], ["old/b>new/b", "old/c>new/c"], ["-old/b", "-old/c"]])
        XCTAssertEqual(pending.count, 0)
    }

    func testAFinishedWriterLetsGoOfTheIndex() {
        var store: FillingStore? = FillingStore(room: 10)
        weak let held = store
        let writer = IndexWriter(index: store, log: { _ in })
        writer.save(files("a"))
        XCTAssertEqual(writer.finish(removing: []), .written)
        store = nil
        XCTAssertNil(held, "only the writer's owner held it")
        withExtendedLifetime(writer) {}
    }

    func testTheFirstFailureStopsTheWritingAndIsReturned() {
        let store = FillingStore(room: 1)
        let lines = Locked<[String]>([])
        let writer = IndexWriter(index: store, log: { line in lines.withLock { $0.append(line) } })
        writer.save(files("a"))
        writer.save(files("b"))
        writer.save(files("c"))
        XCTAssertEqual(writer.finish(removing: ["old"]), .failed(Errno(rawValue: ENOSPC)))
        XCTAssertEqual(store.saved, [["a"]], "nothing after the failure")
        XCTAssertEqual(lines.withLock { $0 }, ["albumfs: warning: the index cannot be written: No space left on device"])
    }

    /// A scan with nothing to write says so, even to a store that would fail: a quiet rescan
    /// says nothing about the index's disk.
    func testAScanWithNothingToWriteSaysSo() {
        let full = FillingStore(room: 0)
        XCTAssertEqual(IndexWriter(index: full, log: { _ in XCTFail("nothing to log") }).finish(removing: []), .nothingWritten)
        XCTAssertEqual(full.saved, [])
        let writer = IndexWriter(index: nil, log: { _ in XCTFail("nothing to log") })
        writer.save(files("a"))
        XCTAssertEqual(writer.finish(removing: ["old"]), .nothingWritten, "no index")
    }

    /// The failure shown: set by a failed scan, kept through scans that wrote nothing, cleared
    /// only by one that wrote.
    func testTheFailureShownChangesOnlyWithAScanThatTriedToWrite() {
        let full = Errno(rawValue: ENOSPC), other = Errno(rawValue: EIO)
        var shown: Errno? = nil
        shown = IndexWriter.Outcome.failed(full).failure(after: shown)
        XCTAssertEqual(shown, full)
        shown = IndexWriter.Outcome.nothingWritten.failure(after: shown)
        XCTAssertEqual(shown, full, "a quiet rescan keeps it")
        shown = IndexWriter.Outcome.failed(other).failure(after: shown)
        XCTAssertEqual(shown, other, "the latest reason")
        shown = IndexWriter.Outcome.written.failure(after: shown)
        XCTAssertNil(shown)
        XCTAssertNil(IndexWriter.Outcome.nothingWritten.failure(after: nil))
    }
}

/// A first scan's writer holds its batches (written after its views are published), within
/// bounds: past them, or when the mount stops, it writes what it holds and then as it goes.
final class IndexWriterHoldingTests: XCTestCase {
    private func files(_ names: String...) -> [IndexedFile] {
        names.map { IndexedFile(relativePath: $0, identity: FileIdentity(inode: 1, size: 2, mtime: Timestamp(seconds: 3)), kind: .ignored) }
    }

    func testHeldBatchesAreWrittenTogetherWhenFinishedLaterAndCountedUntilThen() {
        let store = IndexWriterTests.FillingStore(room: 10)
        let queue = DispatchQueue(label: "test.writer")
        let pending = PendingRows()
        let writer = IndexWriter(index: store, log: { _ in XCTFail("nothing to log") }, queue: queue, pending: pending,
                                 holding: IndexWriter.Holding(files: 10, seconds: 60))
        writer.save(files("a", "b"))
        writer.save(files("c"))
        queue.sync {}
        XCTAssertEqual(store.saved, [], "held")
        XCTAssertEqual(pending.count, 3)
        let written = expectation(description: "written")
        writer.finishLater(removing: ["old"]) { outcome in
            XCTAssertEqual(outcome, .written)
            written.fulfill()
        }
        wait(for: [written], timeout: 10)
        XCTAssertEqual(store.saved, [["a", "b"], ["c"], ["-old"]], "in order, then the removals")
        XCTAssertEqual(pending.count, 0)
    }

    func testPastItsBoundAWriterWritesWhatItHeldThenAsItGoes() {
        let store = IndexWriterTests.FillingStore(room: 10)
        let queue = DispatchQueue(label: "test.writer")
        let writer = IndexWriter(index: store, log: { _ in }, queue: queue, holding: IndexWriter.Holding(files: 3, seconds: 60))
        writer.save(files("a", "b"))
        writer.save(files("c", "d"))
        writer.save(files("e"))
        queue.sync {}
        XCTAssertEqual(store.saved, [["a", "b"], ["c", "d"], ["e"]])
        let late = IndexWriter(index: store, log: { _ in }, queue: queue, holding: IndexWriter.Holding(files: 100, seconds: 0))
        late.save(files("f"))
        queue.sync {}
        XCTAssertEqual(store.saved.last, ["f"], "a scan older than the time held writes as it goes")
    }

    func testAMountStoppingWritesWhatItsScanHolds() {
        let store = IndexWriterTests.FillingStore(room: 10)
        let queue = DispatchQueue(label: "test.writer")
        let writer = IndexWriter(index: store, log: { _ in }, queue: queue, holding: .firstScan)
        writer.save(files("a"))
        writer.stopHolding()
        writer.save(files("b"))
        queue.sync {}
        XCTAssertEqual(store.saved, [["a"], ["b"]])
        XCTAssertEqual(writer.finish(removing: []), .written)
    }

    func testAFailureOfAHeldWriteIsWhatFinishingLaterSays() {
        let store = IndexWriterTests.FillingStore(room: 0)
        let writer = IndexWriter(index: store, log: { _ in }, holding: .firstScan)
        writer.save(files("a"))
        let said = Locked<IndexWriter.Outcome?>(nil)
        let written = expectation(description: "written")
        writer.finishLater(removing: []) { outcome in
            said.withLock { $0 = outcome }
            written.fulfill()
        }
        wait(for: [written], timeout: 10)
        XCTAssertEqual(said.withLock { $0 }, .failed(Errno(rawValue: ENOSPC)))
    }
}
