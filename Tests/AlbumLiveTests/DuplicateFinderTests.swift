import AlbumCore
import AlbumIndex
@testable import AlbumMetadata
import AlbumSample
import AlbumSystem
@testable import AlbumLive
import Foundation
import Glibc
import XCTest

/// `DuplicateFinder` on real files: only files of one size are read, the full hash only where
/// partial hashes agree, known hashes are not read again, and a file that is no longer the one
/// scanned (replaced, a link in its place) is in no group and is not followed.
final class DuplicateFinderTests: XCTestCase {
    var folder = ""

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "albumfs-dups-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    func write(_ path: String, _ bytes: [UInt8]) {
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/" + path, contents: Data(bytes)), path)
    }

    /// The photo a scan makes of the file at `path` now (its identity and ctime).
    func scanned(_ path: String) throws -> Photo {
        var st = stat()
        XCTAssertEqual(stat(folder + "/" + path, &st), 0, path)
        let time = CaptureTime(local: LocalDateTime(year: 2024, month: 1, day: 1), utcOffsetSeconds: 0)
        return Photo(relativePath: path, format: .jpeg,
                     identity: FileIdentity(inode: UInt64(st.st_ino), size: Int64(st.st_size), mtime: Timestamp(st.st_mtim)),
                     decisions: PhotoDecisions(capture: CaptureDecision(time: time, source: .exifDateTimeOriginal),
                                               captureInstant: Timestamp(seconds: 0),
                                               screenshot: ScreenshotDecision(isScreenshot: false, reason: "t")),
                     changedWhenRead: Timestamp(st.st_ctim))
    }

    func testOnlyFilesOfOneSizeAreReadAndTheMiddleIsCompared() throws {
        let big = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var middle = big
        middle[150_000] ^= 0xFF
        write("a.jpg", big)
        write("b.jpg", big)
        write("c.jpg", middle)
        write("alone.jpg", Array(big.prefix(1000)))
        write("d.jpg", Array(big.prefix(2000)))
        write("e.jpg", Array(big.suffix(2000)))
        let photos = try ["a.jpg", "b.jpg", "c.jpg", "alone.jpg", "d.jpg", "e.jpg"].map(scanned)
        let finder = DuplicateFinder(root: folder, store: nil, log: { XCTFail($0) })
        let groups = finder.groups(for: photos) { _, _ in }
        XCTAssertEqual(groups, ["a.jpg": 1, "b.jpg": 1], "c differs past both partial spans; d and e differ in their partial hashes")
        XCTAssertEqual(finder.filesHashed.load(ordering: .relaxed), 5 + 3, "5 partial hashes (not alone.jpg), 3 full (a, b, c)")
        XCTAssertEqual(finder.groups(for: photos) { _, _ in }, groups)
        XCTAssertEqual(finder.filesHashed.load(ordering: .relaxed), 8, "nothing read again")
    }

    /// Files a scan reads whole (no longer than its first read) are hashed from that read, and
    /// the search reads only the first of each size again; the hashes are those the search makes
    /// (the same groups, and equal to `ContentDigest`'s of each file); with io_uring and file by file.
    func testFilesTheScanReadWholeAreNotReadAgain() throws {
        for batched in [true, false] {
            try FileManager.default.removeItem(atPath: folder)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let a = try SampleJPEG.jpeg(.marker(width: 64, height: 48, tint: 10))
            let b = try SampleJPEG.jpeg(.marker(width: 96, height: 48, tint: 90))
            for name in ["a1.jpg", "a2.jpg", "a3.jpg", "a4.jpg"] { write(name, a) }
            for name in ["b1.jpg", "b2.jpg", "b3.jpg"] { write(name, b) }
            XCTAssertNotEqual(a.count, b.count)
            XCTAssertLessThan(a.count, MetadataReader.firstBlock, "read whole by the scan's first read")
            let finder = DuplicateFinder(root: folder, store: nil, log: { XCTFail($0) })
            let photos = Self.scanHashingWhileReading(folder, into: finder, batched: batched)
            XCTAssertEqual(photos.count, 7)
            let made = finder.whileReading.take()
            XCTAssertEqual(made.count, 5, "all but the first of each size (batched: \(batched))")
            for digest in made {
                let photo = try XCTUnwrap(photos.first { HashesWhileReading.pathKey($0.sourcePath) == digest.pathKey })
                let fd = open(folder + "/" + photo.sourcePath, O_RDONLY)
                defer { close(fd) }
                var buffer: [UInt8] = []
                XCTAssertEqual(digest.partial, try ContentDigest.partial(fd, size: Int(photo.identity.size), buffer: &buffer), photo.sourcePath)
                let full = try ContentDigest.fullHash(fd, size: Int(photo.identity.size), buffer: &buffer)
                XCTAssertEqual([digest.fullHigh, digest.fullLow], [full.high, full.low], photo.sourcePath)
                XCTAssertEqual(digest.stamp, KnownContent.file(photo), photo.sourcePath)
                finder.whileReading.note([digest])
            }
            let groups = finder.groups(for: photos) { _, _ in }
            XCTAssertEqual(Set(groups.keys), ["a1.jpg", "a2.jpg", "a3.jpg", "a4.jpg", "b1.jpg", "b2.jpg", "b3.jpg"])
            XCTAssertEqual(Set(["a1.jpg", "a2.jpg", "a3.jpg", "a4.jpg"].map { groups[$0] }).count, 1)
            XCTAssertNotEqual(groups["a1.jpg"], groups["b1.jpg"])
            XCTAssertEqual(finder.filesHashed.load(ordering: .relaxed), 2 + 2, "the first of each size: its partial, then its full hash")
        }
    }

    /// The index keeps a full hash only for files whose partial hashes agree with another's: a
    /// scan that read small files whole hashed some whose partial hash is their own, and those
    /// keep their partial hash alone (a remount would read every one back otherwise).
    func testTheIndexKeepsFullHashesOnlyWherePartialHashesAgree() throws {
        let library = folder + "/library"
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
        let a = try SampleJPEG.jpeg(.marker(width: 64, height: 48, tint: 10))
        XCTAssertLessThan(a.count, MetadataReader.firstBlock, "read whole by the scan's first read")
        // Two files of `a`'s size that differ from it and from each other near their end (in the
        // partial hash's span, past the header the scan reads).
        let (b, c) = (Self.changing(a, at: a.count - 3), Self.changing(a, at: a.count - 4))
        let files: [(String, [UInt8])] = [("a1.jpg", a), ("a2.jpg", a), ("a3.jpg", a), ("b.jpg", b), ("c.jpg", c)]
        for (name, bytes) in files { XCTAssertTrue(FileManager.default.createFile(atPath: library + "/" + name, contents: Data(bytes)), name) }
        let index = try LibraryIndex.openOrRebuild(path: folder + "/index.sqlite") { XCTFail($0) }
        let finder = DuplicateFinder(root: library, store: index, log: { XCTFail($0) })
        let photos = Self.scanHashingWhileReading(library, into: finder)
        XCTAssertEqual(photos.count, 5)
        // The setup holds: one of b and c (at most one is its size's first) got its full hash while read.
        let made = finder.whileReading.take()
        let madeFor = Set(made.compactMap { d in photos.first { HashesWhileReading.pathKey($0.sourcePath) == d.pathKey }?.sourcePath })
        XCTAssertFalse(madeFor.isDisjoint(with: ["b.jpg", "c.jpg"]), "a full hash made while reading a file of its own partial hash: \(madeFor.sorted())")
        finder.whileReading.note(made)
        XCTAssertEqual(Set(finder.groups(for: photos) { _, _ in }.keys), ["a1.jpg", "a2.jpg", "a3.jpg"])
        let kept = Dictionary(uniqueKeysWithValues: try index.contentHashes().map { ($0.relativePath, $0) })
        XCTAssertEqual(Set(kept.keys), ["a1.jpg", "a2.jpg", "a3.jpg", "b.jpg", "c.jpg"], "every file that shares its size has its row")
        XCTAssertEqual(Set(kept.values.filter { $0.full != nil }.map(\.relativePath)), ["a1.jpg", "a2.jpg", "a3.jpg"],
                       "a full hash only where partial hashes agree")
        var buffer: [UInt8] = []
        let fd = open(library + "/a1.jpg", O_RDONLY)
        defer { close(fd) }
        XCTAssertEqual(kept["a2.jpg"]?.full, try ContentDigest.fullHash(fd, size: a.count, buffer: &buffer).hex, "the file's own hash")
        XCTAssertEqual(Set(["b.jpg", "c.jpg", "a1.jpg"].map { kept[$0]?.partial }).count, 3, "each partial hash kept, its own")
    }

    /// The photos of a scan of `root` whose readers hash what they read whole into `finder`.
    static func scanHashingWhileReading(_ root: String, into finder: DuplicateFinder, batched: Bool = true) -> [Photo] {
        var scanner = LibraryScanner(root: root, rules: ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000))))
        scanner.batchedReads = batched
        scanner.hashesWhileReading = finder.whileReading
        let pipeline = ScanPipeline(scanner: scanner, index: nil)
        let writer = IndexWriter(index: nil, log: { _ in })
        _ = pipeline.scan(ScanRequest(folder: "", writer: writer, moveLookup: pipeline.moveLookup(saving: writer)))
        return pipeline.known.report().photos
    }

    /// `bytes` with the byte at `offset` set to another value (never 0xFF: no marker is made).
    static func changing(_ bytes: [UInt8], at offset: Int) -> [UInt8] {
        var changed = bytes
        changed[offset] = bytes[offset] == 0x10 ? 0x11 : 0x10
        return changed
    }

    /// A file replaced by a link after the scan is not followed: its photo is in no group.
    func testAFileThatIsNoLongerTheOneScannedIsInNoGroup() throws {
        let bytes = [UInt8](repeating: 7, count: 5000)
        write("a.jpg", bytes)
        write("b.jpg", bytes)
        write("outside.jpg", bytes)
        let photos = try ["a.jpg", "b.jpg"].map(scanned)
        XCTAssertEqual(unlink(folder + "/b.jpg"), 0)
        XCTAssertEqual(symlink(folder + "/outside.jpg", folder + "/b.jpg"), 0)
        let finder = DuplicateFinder(root: folder, store: nil, log: { XCTFail($0) })
        XCTAssertEqual(finder.groups(for: photos) { _, _ in }, [:])
        XCTAssertEqual(finder.filesHashed.load(ordering: .relaxed), 1, "a.jpg alone was read")
    }
}

/// What the finder keeps between passes: found by key before and after the entries set in a pass
/// are settled into the sorted table, only the kept keys left, 40 bytes an entry.
final class KnownContentsTests: XCTestCase {
    func testEntriesAreFoundBeforeAndAfterSettlingAndOnlyTheKeptStay() {
        func record(_ k: Int) -> ContentHashRecord {
            let identity = FileIdentity(inode: UInt64(k + 1), size: 100, mtime: Timestamp(seconds: 5))
            let full: String? = k == 1 ? "00112233445566778899aabbccddeeff" : nil
            let changed: Timestamp? = k == 0 ? nil : Timestamp(seconds: 6)
            return ContentHashRecord(relativePath: "f\(k).jpg", identity: identity, changedWhenRead: changed, partial: UInt64(10 + k), full: full)
        }
        let records = [record(0), record(1), record(2)]
        let keys = records.map { KnownContent.key($0.relativePath) }
        var known = KnownContents(Array(records.prefix(2)))
        XCTAssertEqual(known[keys[0]]?.partial, 10)
        XCTAssertEqual(known[keys[1]]?.full?.hex, "00112233445566778899aabbccddeeff")
        XCTAssertNil(known[keys[2]])
        known[keys[2]] = KnownContent(records[2])
        known[keys[0]]?.partial = 99
        XCTAssertEqual(known[keys[2]]?.partial, 12, "set in this pass")
        XCTAssertEqual(known[keys[0]]?.partial, 99, "the pass's value, not the table's")
        known.settle(keeping: [keys[0], keys[2]])
        XCTAssertEqual(known[keys[0]]?.partial, 99)
        XCTAssertNil(known[keys[1]], "not kept")
        XCTAssertEqual(known[keys[2]]?.partial, 12)
        XCTAssertEqual(known.values.count, 2)
        XCTAssertEqual(known[keys[2]]?.file, KnownContent.file(records[2].identity, records[2].changedWhenRead))
        XCTAssertNotEqual(KnownContent.file(records[2].identity, nil), KnownContent.file(records[2].identity, records[2].changedWhenRead),
                          "another ctime is another file")
        XCTAssertLessThanOrEqual(MemoryLayout<KnownContent>.stride, 40)
    }
}
