import AlbumCore
@testable import AlbumVFS
import XCTest

/// Inode numbers of photos: stable while a path stays, forgotten once it is gone, never reused.
final class InodeAllocatorTests: XCTestCase {
    /// Numbers the photos at `paths` as a tree build does: each path's number.
    private func build(_ allocator: InodeAllocator, _ paths: [String], renamed: [FileMove] = []) -> [String: UInt32] {
        allocator.batch(photoCount: paths.count, renamed: renamed) { _, photo in
            Dictionary(uniqueKeysWithValues: paths.map { ($0, photo($0)) })
        }.0
    }

    private func library(_ folder: String, _ count: Int = 2_000) -> [String] { (0..<count).map { "\(folder)/IMG_\($0).JPG" } }

    func testAPathKeepsItsNumberFromBuildToBuild() {
        let allocator = InodeAllocator()
        let first = build(allocator, library("A"))
        let second = build(allocator, library("A") + ["A/new.jpg"])
        XCTAssertEqual(second.filter { $0.key != "A/new.jpg" }, first)
        XCTAssertFalse(first.values.contains(second["A/new.jpg"]!))
    }

    func testPathsGoneAreForgottenAfterTheNextBuildAndTheirNumbersNeverComeBack() {
        let allocator = InodeAllocator()
        let before = build(allocator, library("A"))
        // The library's folder renamed: every path is new.
        let renamed = build(allocator, library("B"))
        // The tree before the swap is still asked for its photos (a pick's photo that moved).
        XCTAssertEqual(allocator.photoNumber(source: "A/IMG_7.JPG"), before["A/IMG_7.JPG"])
        XCTAssertEqual(allocator.photoPathCount, 4_000)
        _ = build(allocator, library("B"))
        XCTAssertNil(allocator.photoNumber(source: "A/IMG_7.JPG"), "gone two builds ago: forgotten")
        XCTAssertEqual(allocator.photoNumber(source: "B/IMG_7.JPG"), renamed["B/IMG_7.JPG"])
        XCTAssertEqual(allocator.photoPathCount, 2_000)
        // Renamed back: new numbers (the kernel may still hold inodes made from the old ones).
        let back = build(allocator, library("A"))
        XCTAssertTrue(Set(back.values).isDisjoint(with: Set(before.values).union(renamed.values)))
    }

    func testRenamesOverAndOverKeepTheMapNearTheLibrarysSize() {
        let allocator = InodeAllocator()
        for round in 0..<10 {
            _ = build(allocator, library("R\(round)"))
            XCTAssertLessThanOrEqual(allocator.photoPathCount, 4_000, "round \(round)")
        }
    }

    func testAFewPathsGoneWaitForMoreBeforeTheMapIsSwept() {
        let allocator = InodeAllocator()
        _ = build(allocator, library("A"))
        // 100 photos deleted, build after build: swept only once the paths gone pass a quarter
        // of the library and 1,024 (one pass over the map per that many, not one per build).
        var kept = library("A")
        for _ in 0..<3 {
            kept.removeLast(100)
            _ = build(allocator, kept)
        }
        XCTAssertEqual(allocator.photoPathCount, 2_000)
        XCTAssertEqual(allocator.photoNumber(source: "A/IMG_1999.JPG").map { _ in true }, true)
        while allocator.photoPathCount > kept.count + 200, kept.count > 100 {
            kept.removeLast(100)
            _ = build(allocator, kept)
        }
        XCTAssertEqual(kept.count, 700, "swept once 1,300 were gone")
        XCTAssertNil(allocator.photoNumber(source: "A/IMG_1999.JPG"))
    }

    func testAFileWhoseFolderWasRenamedTakesItsOldPathsNumber() {
        let allocator = InodeAllocator()
        let before = build(allocator, ["A/x.jpg", "A/y.jpg", "z.jpg"])
        let after = build(allocator, ["B/x.jpg", "B/y.jpg", "z.jpg"],
                          renamed: [FileMove(from: "A/x.jpg", to: "B/x.jpg", identity: .unknown), FileMove(from: "A/y.jpg", to: "B/y.jpg", identity: .unknown)])
        XCTAssertEqual(after, ["B/x.jpg": before["A/x.jpg"]!, "B/y.jpg": before["A/y.jpg"]!, "z.jpg": before["z.jpg"]!])
        XCTAssertNil(allocator.photoNumber(source: "A/x.jpg"), "one path per number")
        XCTAssertEqual(build(allocator, ["A/x.jpg"])["A/x.jpg"].map { Set(before.values).contains($0) }, false, "back again: a new number")
    }

    func testFoldersThatSwapNamesSwapNumbers() {
        let allocator = InodeAllocator()
        let before = build(allocator, ["A/x.jpg", "B/x.jpg"])
        let after = build(allocator, ["A/x.jpg", "B/x.jpg"],
                          renamed: [FileMove(from: "A/x.jpg", to: "B/x.jpg", identity: .unknown), FileMove(from: "B/x.jpg", to: "A/x.jpg", identity: .unknown)])
        XCTAssertEqual(after, ["A/x.jpg": before["B/x.jpg"]!, "B/x.jpg": before["A/x.jpg"]!])
    }

    /// A build told the numbers of photos where they were before (`same`: the same path at the
    /// same position) gives them the numbers their paths have; one after a rename is not told
    /// (two folders that swapped names have each other's paths where they were).
    func testNumbersTakenByPositionAreThePathsNumbers() {
        let allocator = InodeAllocator()
        let paths = library("A", 100)
        _ = build(allocator, paths)
        _ = build(allocator, paths.reversed())
        let before = build(allocator, paths)
        var next = paths + ["A/new.jpg"]
        next[3] = "A/other.jpg"
        let hinted = allocator.batch(photoCount: next.count, same: { k in k < paths.count && paths[k] == next[k] ? before[paths[k]] : nil }) { _, photo in
            Dictionary(uniqueKeysWithValues: next.map { ($0, photo($0)) })
        }.0
        XCTAssertEqual(hinted.filter { $0.key.hasPrefix("A/IMG_") }, before.filter { $0.key != "A/IMG_3.JPG" })
        XCTAssertEqual(Set(hinted.values).count, next.count)
        XCTAssertEqual(allocator.photoNumber(source: "A/new.jpg"), hinted["A/new.jpg"])
        XCTAssertEqual(build(allocator, next), hinted, "the next build finds the same numbers by path")

        let two = build(allocator, ["A/x.jpg", "B/x.jpg"])
        let swapped = allocator.batch(photoCount: 2, renamed: [FileMove(from: "A/x.jpg", to: "B/x.jpg", identity: .unknown),
                                                               FileMove(from: "B/x.jpg", to: "A/x.jpg", identity: .unknown)],
                                      same: { [two["A/x.jpg"], two["B/x.jpg"]][$0] }) { _, photo in [photo("A/x.jpg"), photo("B/x.jpg")] }.0
        XCTAssertEqual(swapped, [two["B/x.jpg"]!, two["A/x.jpg"]!])
    }

    func testAnOldPathNamedTwiceGivesItsNumberToOneNewPathOnly() {
        let allocator = InodeAllocator()
        let before = build(allocator, ["A/x.jpg"])
        let after = build(allocator, ["B/x.jpg", "C/x.jpg"],
                          renamed: [FileMove(from: "A/x.jpg", to: "B/x.jpg", identity: .unknown), FileMove(from: "A/x.jpg", to: "C/x.jpg", identity: .unknown)])
        XCTAssertEqual(after["B/x.jpg"], before["A/x.jpg"])
        XCTAssertNotEqual(after["C/x.jpg"], before["A/x.jpg"])
        XCTAssertEqual(Set(after.values).count, 2)
    }

    /// A first build notes its paths and puts them in the map only when asked (`unmapped`): a
    /// lookup by path right after it, folders numbered between its photos, and the next build
    /// all see the numbers it gave.
    func testAFirstBuildsNumbersAreFoundBeforeAndAfterTheNextBuild() {
        let allocator = InodeAllocator()
        let paths = library("A", 300)
        var folders: [UInt64] = []
        let first = allocator.batch(photoCount: paths.count) { named, photo in
            Dictionary(uniqueKeysWithValues: paths.enumerated().map { i, path in
                if i % 100 == 0 { folders.append(named(1, "folder \(i)")) }
                return (path, photo(path))
            })
        }.0
        XCTAssertEqual(Set(first.values).count, 300)
        XCTAssertTrue(folders.allSatisfy { f in !first.values.contains { InodeAllocator.inode(number: $0, slot: 0) == f } })
        XCTAssertEqual(allocator.photoNumber(source: "A/IMG_42.JPG"), first["A/IMG_42.JPG"])
        XCTAssertEqual(allocator.photoPathCount, 300)
        XCTAssertEqual(build(allocator, paths), first)
        let fresh = InodeAllocator()
        let numbered = build(fresh, paths)
        XCTAssertEqual(build(fresh, paths + ["A/new.jpg"]).filter { $0.key != "A/new.jpg" }, numbered, "mapped by the next build")
    }

    /// A first scan's trees, each the one before with the photos read since after it: numbered
    /// by position while the paths are unmapped, every photo keeps its number, a new one gets a
    /// new number, a lookup by path finds each; a tree out of that order, or shorter, too.
    func testAFirstScansGrowingTreesKeepTheirNumbers() {
        let allocator = InodeAllocator()
        let all = library("A", 3_000)
        var numbers: [String: UInt32] = [:]
        for end in [1_000, 1_000, 2_500, 3_000] {
            let built = build(allocator, Array(all[..<end]))
            for (path, n) in built {
                if let old = numbers[path] { XCTAssertEqual(n, old, path) }
                numbers[path] = n
            }
            XCTAssertEqual(Set(built.values).count, end)
        }
        XCTAssertEqual(Set(numbers.values).count, 3_000, "no number given twice")
        XCTAssertEqual(allocator.photoNumber(source: "A/IMG_2999.JPG"), numbers["A/IMG_2999.JPG"])
        XCTAssertEqual(allocator.photoPathCount, 3_000)
        for grown in [false, true] {
            let fresh = InodeAllocator()
            let first = build(fresh, Array(all[..<1_000]))
            if grown { _ = build(fresh, Array(all[..<2_000])) }
            // Out of order (a photo dropped, the last moved into its place), then shorter.
            var swapped = Array(all[..<2_000])
            swapped.swapAt(10, 1_999)
            let out = build(fresh, swapped)
            XCTAssertEqual(out.filter { first[$0.key] != nil }, first)
            XCTAssertEqual(Set(out.values).count, 2_000)
            XCTAssertEqual(build(fresh, Array(all[..<500])), out.filter { all[..<500].contains($0.key) })
            XCTAssertEqual(fresh.photoNumber(source: "A/IMG_1999.JPG"), out["A/IMG_1999.JPG"], "the tree before is still asked")
        }
    }

    /// A tree out of the order of the one before (a remount's: the index's order, not the views
    /// snapshot's) keeps every number, and is then numbered by position in its own order: the
    /// map holds only the paths the tree before had and this one has not, not a second copy of
    /// every path; the build after it and lookups by path agree.
    func testATreeOutOfOrderIsNumberedByPositionInItsOwn() {
        let allocator = InodeAllocator()
        let before = library("A", 2_000)
        let first = build(allocator, before)
        var reordered = Array(before.dropLast(10).reversed())
        reordered.append("A/new.jpg")
        let out = build(allocator, reordered)
        XCTAssertEqual(out.filter { $0.key != "A/new.jpg" }, first.filter { out[$0.key] != nil })
        XCTAssertFalse(first.values.contains(out["A/new.jpg"]!))
        XCTAssertEqual(allocator.mappedPathCount, 10, "only the paths gone stay in the map")
        XCTAssertEqual(allocator.photoNumber(source: "A/IMG_1999.JPG"), first["A/IMG_1999.JPG"], "the tree before is still asked")
        XCTAssertEqual(build(allocator, reordered), out)
        XCTAssertEqual(allocator.photoNumber(source: "A/IMG_5.JPG"), out["A/IMG_5.JPG"])
        XCTAssertEqual(allocator.photoNumber(source: "A/new.jpg"), out["A/new.jpg"])
    }

    /// After a first build (numbered by position), builds told by `same` (as the node table
    /// tells them: by position, else among the photos that moved) keep numbering by position: a
    /// photo removed leaves the last in its place and that one keeps its number, a new one gets a
    /// new number, the path removed is still found (the tree before is asked) and its number is
    /// never given again; a lookup by path afterwards agrees.
    func testPhotosMovedByARemovalKeepTheirNumbersWithoutAMapByPath() {
        let allocator = InodeAllocator()
        var tree = library("A", 1_000)
        var numbers = build(allocator, tree)
        var removed = (path: "", number: UInt32(0))
        for step in 0..<6 {
            var next = tree
            let hole = (step * 137) % next.count
            let last = next.removeLast()
            if hole < next.count { next[hole] = last }
            if step % 2 == 1 { next.append("B/new\(step).jpg") }
            let before = tree, beforeNumbers = numbers
            let moved = Dictionary(uniqueKeysWithValues: before.indices.filter { $0 >= next.count || before[$0] != next[$0] }.map { (before[$0], beforeNumbers[before[$0]]!) })
            numbers = allocator.batch(photoCount: next.count, same: { k in
                k < before.count && before[k] == next[k] ? beforeNumbers[before[k]] : moved[next[k]]
            }, complete: true) { _, photo in Dictionary(uniqueKeysWithValues: next.map { ($0, photo($0)) }) }.0
            XCTAssertEqual(numbers.filter { beforeNumbers[$0.key] != nil }, beforeNumbers.filter { numbers[$0.key] != nil }, "step \(step)")
            XCTAssertEqual(Set(numbers.values).count, next.count)
            if step % 2 == 1 { XCTAssertFalse(Set(beforeNumbers.values).contains(numbers["B/new\(step).jpg"]!), "a new number") }
            removed = (before[hole], beforeNumbers[before[hole]]!)
            tree = next
        }
        // (Asked only now: a lookup by path puts every path in the map, and the builds go by it.)
        XCTAssertEqual(allocator.photoNumber(source: removed.path), removed.number, "the tree before is still asked")
        XCTAssertEqual(build(allocator, tree), numbers, "the next build by path finds the same numbers")
    }

    func testNumberSet() {
        var set = NumberSet()
        for n: UInt32 in [0, 1, 63, 64, 65, 1_000, 100_000, 1_000] { set.insert(n) }
        XCTAssertEqual(set.count, 7)
        for n: UInt32 in [0, 1, 63, 64, 65, 1_000, 100_000] { XCTAssertTrue(set.contains(n), "\(n)") }
        for n: UInt32 in [2, 62, 66, 999, 99_999, 100_001, 5_000_000] { XCTAssertFalse(set.contains(n), "\(n)") }
    }
}

extension FileIdentity {
    /// For moves whose identity the code under test never looks at (the allocator and the tree
    /// go by paths).
    static let unknown = FileIdentity(inode: 0, size: 0, mtime: Timestamp(seconds: 0))
}

extension InodeAllocatorTests {
    /// A file added to a library holding more motion photos than the node table's few moved
    /// photos: every video after the files moves by one, each to its same place among the
    /// videos, so none is counted as moved (past a few, every path would be looked up) and each
    /// keeps its number.
    func testMotionPhotosVideosMovedByAFileAddedKeepTheirNumbersByPosition() {
        let files = 12_000, videos = 4_200
        func photo(_ i: Int) -> Photo {
            let time = CaptureTime(local: Timestamp(seconds: 1_700_000_000 + Int64(i) * 60).local(offsetSeconds: 0), utcOffsetSeconds: 0)
            var p = Photo(relativePath: "A/IMG_\(i).jpg", format: .jpeg, identity: FileIdentity(inode: UInt64(i + 1), size: 5_000, mtime: Timestamp(seconds: 0)),
                          decisions: PhotoDecisions(capture: CaptureDecision(time: time, source: .exifDateTimeOriginal),
                                                    captureInstant: Timestamp(seconds: 1_700_000_000 + Int64(i) * 60),
                                                    screenshot: ScreenshotDecision(isScreenshot: false, reason: "t")))
            if i < videos { p.motionVideo = ByteRange(offset: 3_000, length: 2_000) }
            return p
        }
        let photos = (0..<files).map(photo)
        let settings = ViewSettings(views: try! ShownViews.parse(LibraryViews.byDate).get(), emptyMtime: Timestamp(seconds: 0))
        let before = LibraryViews.build(photos: photos, settings), after = LibraryViews.build(photos: photos + [photo(files)], settings)
        XCTAssertEqual(before.photos.count, files + videos)
        let allocator = InodeAllocator()
        let first = NodeTable(library: before, inodes: allocator)
        XCTAssertEqual(NodeTable.numbersMoved(first, after.photos), [:], "no photo moved but within the files or the videos")
        let second = NodeTable(library: after, inodes: allocator, previous: first)
        let numbers = Dictionary(uniqueKeysWithValues: zip(before.photos.map(\.relativePath), first.numberOfPhoto))
        for (k, photo) in after.photos.enumerated() where photo.relativePath != "A/IMG_\(files).jpg" {
            XCTAssertEqual(second.numberOfPhoto[k], numbers[photo.relativePath], photo.relativePath)
        }
        XCTAssertFalse(numbers.values.contains(second.numberOfPhoto[files]), "the file added has a number of its own")
    }
}
