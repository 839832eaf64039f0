import AlbumCore
@testable import AlbumMetadata
import AlbumSample
import AlbumSystem
import Foundation
import XCTest

final class ReadStreamTests: FolderTestCase {
    private func files(_ names: [String]) throws -> [(path: String, identity: FileIdentity)] {
        let jpeg = Data(try SampleJPEG.jpeg(.marker(width: 4, height: 4)))
        for name in names { XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/" + name, contents: jpeg)) }
        // Identities as a walk gives them: the inode only. (Files are read in inode order, which
        // here is not the order handed in: the order of results must not follow it.)
        return names.map { name in
            var st = stat()
            XCTAssertEqual(stat(folder + "/" + name, &st), 0)
            return (name, FileIdentity(inode: UInt64(st.st_ino), size: -1, mtime: Timestamp(seconds: 0)))
        }
    }

    /// Batches handed in one after another (as a walk does) each come back whole, in their own
    /// order, each handed on exactly once before the last one can be taken, with progress to the end.
    func testBatchesComeBackInOrderEachHandedOnOnce() throws {
        let scanner = LibraryScanner(root: folder, rules: ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000))))
        let sizes = [70, 3, 0, 41]
        var start = 0
        let groups = try sizes.map { n -> [(path: String, identity: FileIdentity)] in
            defer { start += n }
            return try files((start..<start + n).map { String(format: "%03d.jpg", $0) }.shuffled())
        }
        let handedOn = Locked<[[String]]>([])
        let mostDone = Locked(0)
        let stream = scanner.decidingStream(onBatch: { read in
            handedOn.withLock { $0.append(read.map { $0.file.relativePath }) }
        },
                                            progress: { done, _ in mostDone.withLock { $0 = max($0, done) } })
        let batches = groups.map { stream.add($0) }
        stream.end()
        XCTAssertTrue(batches[2].isComplete, "an empty batch is complete at once")
        for (batch, group) in zip(batches, groups) {
            let read = batch.take()
            XCTAssertEqual(read.map { $0.file.relativePath }, group.map { $0.path }, "the batch's own order")
            XCTAssertTrue(read.allSatisfy { $0.photo != nil }, "decided on the reader threads")
            XCTAssertTrue(batch.take().isEmpty, "taken once: the batch keeps nothing")
            XCTAssertTrue(batch.isComplete)
            XCTAssertEqual(batch.count, group.count)
        }
        let nonEmpty = groups.filter { !$0.isEmpty }.map { Set($0.map { $0.path }) }
        XCTAssertEqual(Set(handedOn.withLock { $0 }.map(Set.init)), Set(nonEmpty), "every batch handed on once")
        XCTAssertEqual(handedOn.withLock { $0.count }, nonEmpty.count)
        XCTAssertEqual(mostDone.withLock { $0 }, sizes.reduce(0, +), "progress reaches every file")
    }

    /// A stream given nothing ends without starting a thread or waiting.
    func testAnEmptyStreamEnds() {
        let scanner = LibraryScanner(root: folder, rules: ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000))))
        let stream = scanner.decidingStream()
        XCTAssertTrue(stream.add([]).take().isEmpty)
        stream.end()
    }

    /// A file gone between the hand-in and its read is simply not in the batch.
    func testAVanishedFileIsLeftOut() throws {
        let scanner = LibraryScanner(root: folder, rules: ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000))))
        let items = try files(["a.jpg", "b.jpg"]) + [("gone.jpg", FileIdentity(inode: 0, size: -1, mtime: Timestamp(seconds: 0)))]
        XCTAssertEqual(scanner.read(items).map(\.relativePath), ["a.jpg", "b.jpg"])
    }
}
