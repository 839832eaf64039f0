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

    /// The groups are those a comparison of every pair gives, at every threshold up to 12, on
    /// clusters of hashes a few bits apart, with the blocks split as the search splits them (four
    /// of 16 bits) and as three or five blocks.
    func testGroupsAreThoseOfAllPairsOnClusters() {
        var random = SplitMix(0x9E37_79B9_7F4A_7C15)
        var hashes: [UInt64] = []
        for _ in 0..<60 {
            let base = random.next()
            for _ in 0..<8 {
                var h = base
                for _ in 0..<Int(random.next() % 10) { h ^= 1 << (random.next() % 64) }
                hashes.append(h)
            }
        }
        for threshold in 0...12 {
            let all = Self.allPairsGroups(hashes, threshold: threshold)
            XCTAssertFalse(all.isEmpty)
            XCTAssertEqual(SimilarGroups.groups(hashes, threshold: threshold), all, "threshold \(threshold)")
            XCTAssertEqual(Self.groups(hashes, threshold: threshold, widths: [21, 21, 22]), all, "three blocks, threshold \(threshold)")
            XCTAssertEqual(Self.groups(hashes, threshold: threshold, widths: [13, 13, 13, 13, 12]), all, "five blocks, threshold \(threshold)")
        }
        let before = hashes.count * 3 / 4
        let earlier = Self.allPairsGroups(Array(hashes.prefix(before)), threshold: SimilarGroups.threshold)
        XCTAssertEqual(Self.groups(hashes, threshold: SimilarGroups.threshold, widths: [21, 21, 22], joined: earlier, querying: Array(before..<hashes.count)),
                       Self.allPairsGroups(hashes, threshold: SimilarGroups.threshold), "three blocks, the added hashes searched alone")
    }

    /// Pairs whose differing bits are spread over the blocks in every way (all in one block, just
    /// within each block's radius, one bit past it) are found exactly when within the threshold.
    func testPairsSpreadOverTheBlocksAtTheirLimitsAreThoseOfAllPairs() {
        var random = SplitMix(42)
        for widths in [[16, 16, 16, 16], [21, 21, 22]] {
            var hashes: [UInt64] = []
            for distance in 0...13 {
                for _ in 0..<40 {
                    let base = random.next()
                    var spread = [Int](repeating: 0, count: widths.count)
                    for _ in 0..<distance { spread[Int(random.next() % UInt64(widths.count))] += 1 }
                    hashes += [base, base ^ Self.flips(spread, widths, &random)]
                }
            }
            let all = Self.allPairsGroups(hashes, threshold: SimilarGroups.threshold)
            XCTAssertEqual(Self.groups(hashes, threshold: SimilarGroups.threshold, widths: widths), all, "\(widths)")
            XCTAssertGreaterThan(all.count, 40 * 10, "every distance up to the threshold made its pairs")
        }
    }

    /// Adversarial sets for the search: thousands of distinct hashes within 3 bits of one (every
    /// pair within the threshold: one group), another such cluster sharing its low blocks but
    /// 18 bits away, hashes within 6 bits of one (chains, some pairs too far), many copies of a
    /// few hashes, and random hashes beside them.
    func testDenseAndEqualHashesGiveTheGroupsOfAllPairs() {
        var random = SplitMix(7)
        func near(_ center: UInt64, _ bits: Int) -> UInt64 {
            var h = center
            for _ in 0..<Int(random.next() % UInt64(bits + 1)) { h ^= 1 << (random.next() % 64) }
            return h
        }
        let tight = random.next(), loose = random.next(), copied = random.next()
        var hashes = (0..<1_500).map { _ in near(tight, 3) } + (0..<1_000).map { _ in near(loose, 6) }
        // A cluster sharing the tight one's two low blocks, 18 bits from it in the high ones.
        hashes += (0..<800).map { _ in near(tight ^ 0xFFFF_C000_0000_0000, 3) }
        hashes += [UInt64](repeating: copied, count: 400) + [UInt64](repeating: copied ^ 0b11, count: 300)
        hashes += (0..<500).map { _ in random.next() }
        for i in stride(from: hashes.count - 1, to: 0, by: -1) { hashes.swapAt(i, Int(random.next() % UInt64(i + 1))) }
        XCTAssertGreaterThan(Set(hashes).count, 1_500, "mostly distinct hashes")
        let all = Self.allPairsGroups(hashes, threshold: SimilarGroups.threshold)
        XCTAssertEqual(SimilarGroups.groups(hashes), all)
        XCTAssertEqual(Self.groups(hashes, threshold: SimilarGroups.threshold, widths: [21, 21, 22]), all)
        XCTAssertTrue(all.contains { $0.count >= 1_500 }, "the tight cluster is one group")
        XCTAssertTrue(all.contains { (800..<1_000).contains($0.count) }, "the cluster beside it is another")
        XCTAssertTrue(all.contains { $0.count == 700 }, "the copies and their near hash are one group")
    }

    /// A value whose first hashes are one group (nine hashes of the low block 0) still has a
    /// later hash of that value (`j`, far from them) compared with a query joined to that group
    /// (`q`, of low block 1, which reaches `j` through the low block alone: 1 + 3 + 3 + 3 bits).
    func testHashesAfterAValuesGroupAreStillCompared() {
        let bits = { (list: [Int]) in list.reduce(UInt64(0)) { $0 | 1 << UInt64($1) } }
        let group: [UInt64] = [0] + [16, 20, 24, 32, 36, 40, 48, 52].map { bits([$0]) }
        let q = bits([0, 17, 18, 19, 33, 34, 35, 49, 50, 51])
        let j = q ^ bits([0, 21, 22, 23, 37, 38, 39, 53, 54, 55])
        let hashes = group + [j, q]
        XCTAssertEqual(SimilarGroups.distance(j, q), 10)
        XCTAssertTrue(group.allSatisfy { SimilarGroups.distance($0, j) > 10 }, "j is near q alone")
        XCTAssertEqual(Self.allPairsGroups(hashes, threshold: SimilarGroups.threshold), [Array(0..<11)])
        XCTAssertEqual(SimilarGroups.groups(hashes), [Array(0..<11)])
    }

    /// Each block's radius: the radii plus one add up to one more than the threshold, the larger
    /// on the narrower blocks; a block of radius -1 is not probed (equal hashes agree on any).
    func testBlockRadiiLeaveNoPairUnseen() {
        XCTAssertEqual(HashBlocks.radii(threshold: 10, blocks: 4), [2, 2, 2, 1])
        XCTAssertEqual(HashBlocks.radii(threshold: 10, blocks: 3), [3, 3, 2])
        XCTAssertEqual(HashBlocks.radii(threshold: 0, blocks: 4), [0, -1, -1, -1])
        XCTAssertEqual(HashBlocks.widths.reduce(0, +), 64)
        XCTAssertEqual(HashBlocks.masks(width: 21, radius: 3).count, 1 + 21 + 210 + 1_330)
        XCTAssertEqual(Set(HashBlocks.masks(width: 22, radius: 2)).count, 1 + 22 + 231)
        XCTAssertEqual(HashBlocks.masks(width: 22, radius: 2).first, 0)
    }

    /// Hashes whose bits in `spread[b]` random places of block `b` (of `widths`) are set.
    static func flips(_ spread: [Int], _ widths: [Int], _ random: inout SplitMix) -> UInt64 {
        var mask: UInt64 = 0
        var shift = 0
        for (b, width) in widths.enumerated() {
            var bits = Set<Int>()
            while bits.count < min(spread[b], width) { bits.insert(Int(random.next() % UInt64(width))) }
            for bit in bits { mask |= 1 << UInt64(shift + bit) }
            shift += width
        }
        return mask
    }

    /// `SimilarGroups.groups`'s answer with the blocks split as `widths`.
    static func groups(_ hashes: [UInt64], threshold: Int, widths: [Int], joined: [[Int]] = [], querying: [Int]? = nil) -> [[Int]] {
        SimilarGroups.groups(hashes, threshold: threshold, joined: joined, querying: querying, widths: widths)
    }

    /// The reference: every pair compared, its groups found by a walk from each position.
    static func allPairsGroups(_ hashes: [UInt64], threshold: Int) -> [[Int]] {
        var label = [Int](repeating: -1, count: hashes.count)
        for start in hashes.indices where label[start] < 0 {
            label[start] = start
            var stack = [start]
            while let i = stack.popLast() {
                for j in hashes.indices where label[j] < 0 && (hashes[i] ^ hashes[j]).nonzeroBitCount <= threshold {
                    label[j] = start
                    stack.append(j)
                }
            }
        }
        return components(hashes.count) { label[$0] }
    }

    /// Positions by their set's name, sets of two or more, each ascending, by their first member.
    static func components(_ count: Int, _ name: (Int) -> Int) -> [[Int]] {
        var byName: [Int: [Int]] = [:]
        for i in 0..<count { byName[name(i), default: []].append(i) }
        return byName.values.filter { $0.count > 1 }.sorted { $0[0] < $1[0] }
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

    /// A hash more than the bound hold is a plain picture: counted, every other hash not.
    func testAPlainPictureIsAHashHeldByMoreThanTheBound() {
        let bound = 5
        func hashes(_ count: Int) -> [UInt64] { [UInt64](repeating: 7, count: count) + [1, 1, 0xFF] + [UInt64](repeating: 9, count: bound) }
        XCTAssertEqual(SimilarGroups.plainPictures(hashes(bound - 1), bound: bound), PlainPictures())
        XCTAssertEqual(SimilarGroups.plainPictures(hashes(bound), bound: bound), PlainPictures())
        let plain = SimilarGroups.plainPictures(hashes(bound + 1), bound: bound)
        XCTAssertEqual(plain.hashes, [7])
        XCTAssertEqual(plain.stills, bound + 1)
        let two = SimilarGroups.plainPictures(hashes(bound + 1) + [9, 0xFF], bound: bound)
        XCTAssertEqual(two.hashes, [7, 9], "the last run of the sorted hashes counts too")
        XCTAssertEqual(two.stills, 2 * bound + 2)
        XCTAssertGreaterThanOrEqual(SimilarGroups.plainBound, 100, "a group one reviews is not a plain picture")
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

/// SplitMix64: a seeded source of test hashes.
struct SplitMix {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
