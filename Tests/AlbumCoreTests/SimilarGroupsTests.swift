@testable import AlbumCore
import Foundation
import XCTest

/// `duplicates/similar/`'s pure part: the dHash of a 9x8 grey picture, the multi-index's pairs,
/// and how pairs become numbered groups.
final class SimilarGroupsTests: XCTestCase {
    /// Each row's 8 comparisons, worked out by hand: a bit is 1 where a pixel is brighter than
    /// its right neighbour, row 0 in the top byte.
    func testTheHashOfAKnownPictureIsWorkedOutByHand() {
        let rows: [[UInt8]] = [
            [9, 8, 7, 6, 5, 4, 3, 2, 1],          // all brighter: 1111 1111 = FF
            [1, 2, 3, 4, 5, 6, 7, 8, 9],          // none: 00
            [5, 5, 5, 5, 5, 5, 5, 5, 5],          // equal is not brighter: 00
            [2, 1, 2, 1, 2, 1, 2, 1, 2],          // 1010 1010 = AA
            [0, 255, 0, 255, 0, 255, 0, 255, 0],  // 0101 0101 = 55
            [255, 0, 0, 0, 0, 0, 0, 0, 0],        // 1000 0000 = 80
            [0, 0, 0, 0, 0, 0, 0, 0, 255],        // 00
            [0, 0, 0, 0, 0, 0, 0, 255, 0],        // 0000 0001 = 01
        ]
        XCTAssertEqual(SimilarGroups.dHash(rows.flatMap { $0 }), 0xFF00_00AA_5580_0001)
        XCTAssertEqual(SimilarGroups.hex(0xFF00_00AA_5580_0001), "ff0000aa55800001")
        XCTAssertEqual(SimilarGroups.hex(1), "0000000000000001")
        XCTAssertEqual(SimilarGroups.distance(0xFF00_00AA_5580_0001, 0xFF00_00AA_5580_0001), 0)
        XCTAssertEqual(SimilarGroups.distance(0, UInt64.max), 64)
        XCTAssertEqual(SimilarGroups.distance(0b1011, 0b0110), 3)
    }

    /// Groups are the connected parts of the pairs within the threshold (a chain joins ends
    /// farther apart than it), of two or more, each ascending, by their first member.
    func testGroupsAreTheConnectedPartsOfNearPairs() {
        let ones = { (n: Int) -> UInt64 in n == 64 ? UInt64.max : (1 << UInt64(n)) - 1 }
        let rows: [(hashes: [UInt64], threshold: Int, groups: [[Int]], why: String)] = [
            ([0, 1, 0b111, UInt64.max], 10, [[0, 1, 2]], "one bit and three bits from 0; all ones is 64 away"),
            ([0, ones(10), ones(11)], 10, [[0, 1, 2]], "10 bits is within; 11 from 0 but 1 from the other"),
            ([0, ones(11)], 10, [], "11 bits is not"),
            ([0, ones(10), ones(20)], 10, [[0, 1, 2]], "a chain: 0 and ones(20) are 20 apart, each 10 from the middle"),
            ([0, ones(10), ones(20)], 9, [], "the same at 9"),
            ([ones(64), 0, ones(64), 0], 0, [[0, 2], [1, 3]], "equal hashes at threshold 0"),
            ([5], 10, [], "alone"),
            ([], 10, [], "none"),
            ([0x1234_0000_0000_0000, 0x1234_0000_0000_0003, 0x0000_5678_0000_0000, 0x0000_5678_0000_0001], 6, [[0, 1], [2, 3]],
             "only one block agrees"),
        ]
        for row in rows {
            XCTAssertEqual(SimilarGroups.groups(row.hashes, threshold: row.threshold), row.groups, row.why)
        }
    }

    /// The multi-index finds exactly the pairs a comparison of every pair finds, at every
    /// threshold up to 12, on clusters of hashes a few bits apart.
    func testTheMultiIndexFindsEveryPairAllPairsFind() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var hashes: [UInt64] = []
        for _ in 0..<60 {
            let base = next()
            for _ in 0..<8 {
                var h = base
                for _ in 0..<Int(next() % 10) { h ^= 1 << (next() % 64) }
                hashes.append(h)
            }
        }
        let blocks = HashBlocks(hashes)
        for threshold in 0...12 {
            var found = Set<[Int]>()
            blocks.pairs(within: threshold) { found.insert([$0, $1]) }
            var all = Set<[Int]>()
            for i in hashes.indices { for j in (i + 1)..<hashes.count where SimilarGroups.distance(hashes[i], hashes[j]) <= threshold { all.insert([i, j]) } }
            XCTAssertEqual(found, all, "threshold \(threshold)")
            XCTAssertFalse(all.isEmpty)
        }
    }

    /// Hashes added to a library and searched alone, the groups found before joined without a
    /// search, give the groups a search of everything gives.
    func testSearchingOnlyTheAddedHashesGivesTheGroupsOfAFullSearch() {
        var state: UInt64 = 0x1234_5678_9ABC_DEF0
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state ^ (state >> 29)
        }
        var hashes: [UInt64] = []
        for _ in 0..<300 {
            let base = next()
            for _ in 0..<Int(next() % 3) + 1 {
                var h = base
                for _ in 0..<Int(next() % 12) { h ^= 1 << (next() % 64) }
                hashes.append(h)
            }
        }
        let before = hashes.count * 3 / 4
        let earlier = SimilarGroups.groups(Array(hashes.prefix(before)))
        let incremental = SimilarGroups.groups(hashes, joined: earlier, querying: Array(before..<hashes.count))
        XCTAssertEqual(incremental, SimilarGroups.groups(hashes))
        XCTAssertGreaterThan(incremental.count, earlier.count, "the added hashes made groups of their own")
        XCTAssertNotEqual(SimilarGroups.groups(hashes, querying: Array(before..<hashes.count)), SimilarGroups.groups(hashes),
                          "without the earlier groups the old pairs are not searched")
    }

    /// Numbers follow the smallest key of each group; a group of exact copies alone is left out
    /// (`duplicates/` shows it), one with a copy and a similar photo is kept.
    func testNumbersLeaveOutGroupsOfCopiesAlone() {
        let hashes: [String: UInt64] = ["a/copy1": 0xF0, "b/copy2": 0xF0, "c/alike": 0xF1, "d/one": 0xFF00, "e/two": 0xFF01,
                                        "f/copyonly1": 0xAAAA_0000, "g/copyonly2": 0xAAAA_0000, "h/lone": 0x5555_5555_5555_5555]
        let exact: [String: UInt32] = ["a/copy1": 1, "b/copy2": 1, "f/copyonly1": 2, "g/copyonly2": 2]
        XCTAssertEqual(SimilarGroups.numbers(hashes, exact: exact), ["a/copy1": 1, "b/copy2": 1, "c/alike": 1, "d/one": 2, "e/two": 2])
        XCTAssertEqual(SimilarGroups.numbers(hashes), ["a/copy1": 1, "b/copy2": 1, "c/alike": 1, "d/one": 2, "e/two": 2,
                                                       "f/copyonly1": 3, "g/copyonly2": 3])
    }

    /// A library of one picture (100,000 equal hashes) is one group, made in one pass over them.
    func testManyEqualHashesAreOneGroupQuickly() {
        let started = Date()
        let hashes = [UInt64](repeating: 0x0123_4567_89AB_CDEF, count: 100_000) + [0x0123_4567_89AB_CDEE, ~0x0123_4567_89AB_CDEF]
        let groups = SimilarGroups.groups(hashes)
        XCTAssertEqual(groups.count, 1)
        XCTAssertEqual(groups.first?.count, 100_001, "every equal hash and the one a bit away, not the opposite")
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "no pass over every pair")
    }

    /// Which photos take part: stills as the flat views list them (not a video, nor a RAW shown
    /// with its JPEG, nor an empty file), and of a burst only its first photo.
    func testCandidatesAreFlatStillsAndABurstByItsFirstPhoto() {
        func burst(_ path: String, _ second: Int, _ id: String) -> Photo {
            var p = makePhoto(path, (2024, 3, 1, 10), second: second)
            p.sidecarAttributes = [Photo.burstAttribute, id]
            return p
        }
        var empty = makePhoto("e/empty.jpg", (2024, 1, 1, 10))
        empty.identity.size = 0
        var raw = makePhoto("r/DSC_0001.NEF", (2022, 8, 9, 10))
        raw.format = .raw
        let photos = [makePhoto("a/1.jpg", (2024, 1, 1, 10)), makePhoto("v/clip.mov", (2024, 1, 1, 10)), empty,
                      burst("b/IMG_3.JPG", 3, "B1"), burst("b/IMG_1.JPG", 1, "B1"), burst("b/IMG_2.JPG", 2, "B1"), burst("c/IMG_9.JPG", 9, "B2"),
                      raw, makePhoto("r/DSC_0001.JPG", (2022, 8, 9, 10)), makePhoto("s/shot.png", (2021, 1, 1, 10))]
        XCTAssertEqual(SimilarGroups.candidates(photos).map { photos[$0].relativePath },
                       ["a/1.jpg", "b/IMG_1.JPG", "c/IMG_9.JPG", "r/DSC_0001.JPG", "s/shot.png"])
    }

    func testARecordHoldsOnlyTheFileItWasMadeOf() {
        let photo = makePhoto("a/1.jpg", (2024, 1, 1, 10))
        let record = SimilarHashRecord(relativePath: "a/1.jpg", identity: photo.identity, changedWhenRead: photo.changedWhenRead, hash: 7)
        XCTAssertTrue(record.holds(photo))
        var rewritten = photo
        rewritten.identity.mtime = Timestamp(seconds: 5)
        XCTAssertFalse(record.holds(rewritten))
        XCTAssertFalse(record.holds(makePhoto("b/1.jpg", (2024, 1, 1, 10))))
    }
}
