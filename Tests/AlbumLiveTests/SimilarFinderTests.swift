import AlbumCore
import AlbumSystem
@testable import AlbumLive
import Foundation
import Synchronization
import XCTest

/// `SimilarFinder`'s passes with a hasher that answers from a table: only stills whose hash the
/// store does not hold are hashed, once; a changed file is hashed again, a moved one is known by
/// its identity, one that cannot be read is tried again by the next pass; the groups come back.
final class SimilarFinderTests: XCTestCase {
    /// Answers each path's outcome from `table`, counting what it was asked, and yields at once.
    final class TableHasher: PerceptualHasher {
        let table: Locked<[String: PerceptualHashOutcome]>
        let asked = Locked<[String]>([])
        let yields = Atomic<Int>(0)
        init(_ table: [String: PerceptualHashOutcome]) { self.table = Locked(table) }
        func perceptualHash(of photo: Photo, sourceRoot: String) -> PerceptualHashOutcome {
            asked.withLock { $0.append(photo.sourcePath) }
            return table.withLock { $0[photo.sourcePath] } ?? .undecodable
        }
        func yieldToRenders(seconds: Double) { yields.add(1, ordering: .relaxed) }
    }

    /// A store in memory.
    final class MemoryStore: SimilarHashStore {
        let rows = Locked<[String: SimilarHashRecord]>([:])
        func similarHashes() throws(Errno) -> [SimilarHashRecord] { rows.withLock { Array($0.values) } }
        func groupedSimilarHashes() throws(Errno) -> [SimilarHashRecord] { rows.withLock { $0.values.filter { ($0.group ?? 0) > 0 } } }
        func saveSimilarHashes(_ records: [SimilarHashRecord], removing removals: [String]) throws(Errno) {
            rows.withLock { rows in
                for path in removals { rows[path] = nil }
                for r in records { rows[r.relativePath] = r }
            }
        }
    }

    func photo(_ path: String, inode: UInt64, mtime: Int64 = 100) -> Photo {
        let time = CaptureTime(local: LocalDateTime(year: 2024, month: 1, day: 1), utcOffsetSeconds: 0)
        return Photo(relativePath: path, format: path.hasSuffix(".mov") ? .video : .jpeg,
                     identity: FileIdentity(inode: inode, size: 1000, mtime: Timestamp(seconds: mtime)),
                     decisions: PhotoDecisions(capture: CaptureDecision(time: time, source: .exifDateTimeOriginal),
                                               captureInstant: Timestamp(seconds: 0),
                                               screenshot: ScreenshotDecision(isScreenshot: false, reason: "t")))
    }

    /// Runs a pass and waits for its groups (the wait asserted).
    func pass(_ finder: SimilarFinder, _ photos: [Photo], exact: [String: UInt32] = [:]) -> [String: UInt32] {
        let result = Locked<[String: UInt32]?>(nil)
        let done = DispatchSemaphore(value: 0)
        finder.start(photos, exact: exact, progress: { _, _ in }, done: { groups in
            result.withLock { $0 = groups }
            done.signal()
        })
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "the pass ended")
        return result.withLock { $0 } ?? [:]
    }

    func testOnlyWhatTheStoreLacksIsHashedAndGroupsComeBack() {
        let hasher = TableHasher(["a.jpg": .hash(0xFF00), "b.jpg": .hash(0xFF01), "c.jpg": .hash(0x00FF_0000_0000), "d.jpg": .unreadable,
                                  "e.jpg": .undecodable])
        let store = MemoryStore()
        let finder = SimilarFinder(root: "/nowhere", store: store, hasher: hasher, log: { XCTFail($0) })
        var photos = [photo("a.jpg", inode: 1), photo("b.jpg", inode: 2), photo("c.jpg", inode: 3), photo("d.jpg", inode: 4),
                      photo("e.jpg", inode: 5), photo("clip.mov", inode: 6)]
        XCTAssertEqual(pass(finder, photos), ["a.jpg": 1, "b.jpg": 1])
        XCTAssertEqual(hasher.asked.withLock { $0 }.sorted(), ["a.jpg", "b.jpg", "c.jpg", "d.jpg", "e.jpg"], "stills only")
        XCTAssertEqual(hasher.yields.load(ordering: .relaxed), 5, "each hash yields to renders first")
        XCTAssertEqual(finder.filesHashed.load(ordering: .relaxed), 4, "the unreadable one is not counted")
        XCTAssertEqual(store.rows.withLock { $0["e.jpg"]?.hash }, .some(nil), "an undecodable picture is kept as such")
        XCTAssertNil(store.rows.withLock { $0["d.jpg"] }, "an unreadable one is not kept")
        // Again: only the unreadable one is asked again; a finder of a new mount asks nothing else.
        hasher.asked.withLock { $0 = [] }
        let next = SimilarFinder(root: "/nowhere", store: store, hasher: hasher, log: { XCTFail($0) })
        XCTAssertEqual(pass(next, photos), ["a.jpg": 1, "b.jpg": 1])
        XCTAssertEqual(hasher.asked.withLock { $0 }, ["d.jpg"])
        // A file changed (its mtime) is hashed again; a folder renamed (same identity) is known;
        // a file gone takes its record with it; an exact-copies-only group is left out.
        hasher.asked.withLock { $0 = [] }
        hasher.table.withLock { $0["b.jpg"] = .hash(0x1234_5678_0000_0000); $0["d.jpg"] = .hash(0xFF03) }
        photos[1] = photo("b.jpg", inode: 2, mtime: 200)
        photos[2] = photo("moved/c.jpg", inode: 3)
        photos.remove(at: 4)
        XCTAssertEqual(pass(next, photos), ["a.jpg": 1, "d.jpg": 1])
        XCTAssertEqual(hasher.asked.withLock { $0 }.sorted(), ["b.jpg", "d.jpg"])
        XCTAssertEqual(store.rows.withLock { $0.keys.sorted() }, ["a.jpg", "b.jpg", "d.jpg", "moved/c.jpg"])
        XCTAssertEqual(pass(next, photos, exact: ["a.jpg": 1, "d.jpg": 1]), [:], "copies alone are duplicates/'s")
        // A photo added near another is searched alone and joins it; the earlier group stays.
        hasher.asked.withLock { $0 = [] }
        hasher.table.withLock { $0["f.jpg"] = .hash(0x00FF_0000_0003) }
        photos.append(photo("f.jpg", inode: 7))
        XCTAssertEqual(pass(next, photos), ["a.jpg": 1, "d.jpg": 1, "f.jpg": 2, "moved/c.jpg": 2])
        XCTAssertEqual(hasher.asked.withLock { $0 }, ["f.jpg"])
        // The next mount's first tree: the groups the index keeps, nothing hashed or searched.
        XCTAssertEqual(SimilarFinder.groupsFromIndex(photos, exact: [:], store: store, log: { XCTFail($0) }),
                       ["a.jpg": 1, "d.jpg": 1, "f.jpg": 2, "moved/c.jpg": 2])
        XCTAssertEqual(store.rows.withLock { $0["b.jpg"]?.group }, 0, "searched, in no group")
        hasher.asked.withLock { $0 = [] }
        let third = SimilarFinder(root: "/nowhere", store: store, hasher: hasher, log: { XCTFail($0) })
        XCTAssertEqual(pass(third, photos), ["a.jpg": 1, "d.jpg": 1, "f.jpg": 2, "moved/c.jpg": 2])
        XCTAssertEqual(hasher.asked.withLock { $0 }, [])
    }

    /// `count` stills of one picture (`plainHash`) beside a pair of similar photos, a.jpg and b.jpg.
    func library(plain count: Int, hasher: TableHasher) -> [Photo] {
        let paths = (0..<count).map { "plain/\($0.zeroPadded(4)).jpg" }
        hasher.table.withLock { table in
            table["a.jpg"] = .hash(Self.pairHash)
            table["b.jpg"] = .hash(Self.pairHash ^ 1)
            for path in paths { table[path] = .hash(Self.plainHash) }
        }
        return [photo("a.jpg", inode: 1), photo("b.jpg", inode: 2)] + paths.enumerated().map { photo($1, inode: UInt64(10 + $0)) }
    }

    /// A black frame's hash, and one of a picture far from it (32 bits apart).
    static let plainHash: UInt64 = 0
    static let pairHash: UInt64 = 0x0F0F_0F0F_0F0F_0F0F

    func testAHashOfUpToTheBoundsStillsIsOneGroupAndOfMoreAPlainPictureLeftOut() {
        let bound = SimilarGroups.plainBound
        for count in [bound - 1, bound] {
            let hasher = TableHasher([:])
            let finder = SimilarFinder(root: "/nowhere", store: MemoryStore(), hasher: hasher, log: { XCTFail($0) })
            let groups = pass(finder, library(plain: count, hasher: hasher))
            XCTAssertEqual(groups.count, count + 2, "\(count) stills of one hash")
            XCTAssertEqual(Set(groups.filter { $0.key.hasPrefix("plain/") }.values), [2], "\(count) stills of one hash are one group")
            XCTAssertEqual(finder.plain, PlainPictures(), "\(count) stills of one hash")
        }
        let hasher = TableHasher([:])
        let store = MemoryStore()
        let finder = SimilarFinder(root: "/nowhere", store: store, hasher: hasher, log: { XCTFail($0) })
        XCTAssertEqual(pass(finder, library(plain: bound + 1, hasher: hasher)), ["a.jpg": 1, "b.jpg": 1], "the plain picture left out")
        XCTAssertEqual(finder.plain.stills, bound + 1)
        XCTAssertEqual(finder.plain.hashes, [Self.plainHash])
        XCTAssertEqual(store.rows.withLock { $0["plain/0000.jpg"]?.group }, .some(nil), "kept unsearched: searched once no longer plain")
    }

    func testAGroupWhoseHashBecomesPlainLeavesAndComesBackBelowTheBound() {
        let bound = SimilarGroups.plainBound
        let hasher = TableHasher([:])
        let store = MemoryStore()
        let finder = SimilarFinder(root: "/nowhere", store: store, hasher: hasher, log: { XCTFail($0) })
        let photos = library(plain: bound + 1, hasher: hasher)
        XCTAssertEqual(pass(finder, Array(photos.dropLast())).count, bound + 2, "at the bound: one group")
        XCTAssertEqual(store.rows.withLock { $0["plain/0000.jpg"]?.group }, 2)
        // One still more: the group's stills leave it, in the index too (the next mount's first tree).
        XCTAssertEqual(pass(finder, photos), ["a.jpg": 1, "b.jpg": 1])
        XCTAssertEqual(finder.plain.stills, bound + 1)
        XCTAssertEqual(store.rows.withLock { $0["plain/0000.jpg"]?.group }, .some(nil))
        XCTAssertEqual(SimilarFinder.groupsFromIndex(photos, exact: [:], store: store, log: { XCTFail($0) }), ["a.jpg": 1, "b.jpg": 1])
        // One still fewer again: searched as new photos, one group again; nothing hashed twice.
        hasher.asked.withLock { $0 = [] }
        XCTAssertEqual(pass(finder, Array(photos.dropLast())).count, bound + 2)
        XCTAssertEqual(finder.plain, PlainPictures())
        XCTAssertEqual(hasher.asked.withLock { $0 }, [])
    }

    func testGroupsFromAnIndexLeaveAPlainPictureOut() throws {
        let bound = SimilarGroups.plainBound
        let hasher = TableHasher([:])
        let photos = library(plain: bound + 1, hasher: hasher)
        let store = MemoryStore()
        // An index that grouped them all (written by a search that left no plain picture out).
        let records = photos.map { p in
            SimilarHashRecord(relativePath: p.sourcePath, identity: p.identity, changedWhenRead: p.changedWhenRead,
                              hash: p.sourcePath.hasPrefix("plain/") ? Self.plainHash : Self.pairHash, group: p.sourcePath.hasPrefix("plain/") ? 2 : 1)
        }
        try store.saveSimilarHashes(records, removing: [])
        XCTAssertEqual(SimilarFinder.groupsFromIndex(photos, exact: [:], store: store, log: { XCTFail($0) }), ["a.jpg": 1, "b.jpg": 1])
        XCTAssertEqual(SimilarFinder.groupsFromIndex(Array(photos.dropLast()), exact: [:], store: store, log: { XCTFail($0) }).count, bound + 2,
                       "at the bound: shown")
    }
}
