@testable import AlbumCore
import XCTest

/// `duplicates/`'s pure part: which photos are worth a read, how hashes make groups, and the
/// folders the groups make.
final class DuplicateGroupsTests: XCTestCase {
    func sized(_ path: String, _ size: Int64, _ iso: (Int, Int, Int, Int) = (2024, 1, 1, 10)) -> Photo {
        var p = makePhoto(path, iso)
        p.identity.size = size
        return p
    }

    func names(_ node: VirtualNode?) -> [String] {
        guard case .folder(let f)? = node else { return [] }
        return f.children.map(\.name)
    }

    func testOnlyFilesSharingASizeAreCandidatesLargestFirst() {
        var motion = sized("a/IMG_1.JPG/IMG_1.mp4", 20)
        motion.format = .video
        motion.motionVideo = ByteRange(offset: 0, length: 20)
        XCTAssertTrue(motion.isEmbeddedVideo)
        let photos = [sized("a/1.jpg", 10), sized("b/2.jpg", 20), sized("c/1.jpg", 10), sized("e/0.jpg", 0), sized("f/0.jpg", 0),
                      sized("g/3.jpg", 30), sized("h/2.jpg", 20), motion]
        XCTAssertEqual(DuplicateGroups.sameSizeRuns(photos), [[1, 6], [0, 2]], "empty files and a motion photo's video are never candidates")
        XCTAssertEqual(DuplicateGroups.sameSizeRuns([sized("a.jpg", 5)]), [])
    }

    func testASplitKeepsOnlyKeysHeldTwiceAndLeavesOutUnknownKeys() {
        let keys: [Int: UInt64?] = [0: 1, 1: 2, 2: 1, 3: nil, 4: 2, 5: 3]
        let splits = DuplicateGroups.split([0, 1, 2, 3, 4, 5]) { keys[$0]! }.sorted { $0[0] < $1[0] }
        XCTAssertEqual(splits, [[0, 2], [1, 4]])
    }

    /// Numbers come in hash order, so the same files give the same numbers whatever order they
    /// come in; a hash held once is no group.
    func testGroupNumbersFollowTheHashesNotTheOrder() {
        let numbers = DuplicateGroups.numbers([0: "bb", 2: "aa", 5: "aa", 7: "bb", 8: "cc"])
        XCTAssertEqual(numbers, [2: 1, 5: 1, 0: 2, 7: 2])
        XCTAssertEqual(DuplicateGroups.numbers(["h/7": "bb", "c": "cc", "a/5": "aa", "b": "bb", "a/2": "aa"]), ["a/2": 1, "a/5": 1, "b": 2, "h/7": 2])
    }

    func testARecordHoldsOnlyTheFileItWasMadeOf() {
        let photo = sized("a/1.jpg", 10)
        let record = ContentHashRecord(relativePath: "a/1.jpg", identity: photo.identity, changedWhenRead: nil, partial: 1, full: nil)
        XCTAssertTrue(record.holds(photo))
        var rewritten = photo
        rewritten.identity.mtime = Timestamp(seconds: 5)
        XCTAssertFalse(record.holds(rewritten))
        XCTAssertFalse(record.holds(sized("b/1.jpg", 10)))
    }

    /// One folder per group, named after its newest copy, copies newest first, groups newest
    /// first; two groups whose newest copies share a name are told apart as the flat views tell
    /// photos apart; the entries are the originals' (the by-date inode).
    func testTheViewHasAFolderPerGroupNamedAfterItsNewestCopy() throws {
        let photos = [
            sized("a/IMG_1.jpg", 10, (2024, 1, 1, 10)),
            sized("backup/IMG_1.jpg", 10, (2023, 1, 1, 10)),
            sized("export/copy.jpg", 10, (2022, 1, 1, 10)),
            sized("b/IMG_1.jpg", 20, (2024, 6, 1, 10)),
            sized("old/IMG_1.jpg", 20, (2020, 6, 1, 10)),
            sized("alone.jpg", 30, (2025, 1, 1, 10)),
        ]
        let table: [Int32: UInt32] = [0: 2, 1: 2, 2: 2, 3: 1, 4: 1]
        let lib = LibraryViews.build(photos: photos, ViewSettings(emptyMtime: Timestamp(seconds: 0)).grouping(duplicates: table))
        let top = lib.root.child(named: "duplicates")
        let groups = names(top)
        XCTAssertEqual(groups.count, 3)
        // The newest group (2024-06-01) first; of the two wanting `IMG_1.jpg`, the one whose newest
        // copy's path comes first keeps it, as in a flat view; `similar/` last.
        XCTAssertEqual(groups, ["IMG_1~" + EntryNames.tag(for: "b/IMG_1.jpg") + ".jpg", "IMG_1.jpg", "similar"])
        guard case .folder(let folder)? = top else { return XCTFail() }
        XCTAssertEqual(names(folder.child(named: groups[0])), ["IMG_1.jpg", "IMG_1~" + EntryNames.tag(for: "old/IMG_1.jpg") + ".jpg"])
        guard case .folder(let second)? = folder.child(named: groups[1]), case .photos(let entries) = second.entries else { return XCTFail() }
        XCTAssertEqual(entries.members.map { photos[Int($0)].relativePath }, ["a/IMG_1.jpg", "backup/IMG_1.jpg", "export/copy.jpg"])
        XCTAssertEqual(entries.slot, PhotoSlot.duplicates)
        XCTAssertEqual(PhotoSlot.inodeSlot(entries.slot), PhotoSlot.byDate)
        XCTAssertEqual(second.mtime, photos[0].captureInstant, "a group's mtime is its newest copy's")
    }

    /// A Live Photo's motion part is left out as the flat views leave it out: a group with one
    /// copy shown is none.
    func testALivePhotosMotionPartIsNoCopyShown() {
        var photos = [makePhoto("a/IMG_0001.JPG", (2023, 3, 1, 10)), makePhoto("a/IMG_0001.MOV", (2023, 3, 1, 10)),
                      makePhoto("b/other.mov", (2022, 3, 1, 10)), makePhoto("c/x.jpg", (2021, 1, 1, 1)), makePhoto("d/x.jpg", (2021, 1, 1, 1))]
        photos[0].liveIdentifier = 9
        photos[1].liveIdentifier = 9
        let lib = LibraryViews.build(photos: photos,
                                     ViewSettings(emptyMtime: Timestamp(seconds: 0)).grouping(duplicates: [1: 1, 2: 1, 3: 2, 4: 2]))
        XCTAssertEqual(names(lib.root.child(named: "duplicates")), ["x.jpg", "similar"])
    }

    /// A copy added live: the views updated from those shown hold the new group, as a build does.
    func testAnUpdateShowsTheGroupAsABuildDoes() throws {
        var photos = (0..<40).map { sized("p/\($0).jpg", Int64(100 + $0), (2020, 1, 1 + $0 % 28, 10)) }
        let before = LibraryViews.build(photos: photos, ViewSettings(emptyMtime: Timestamp(seconds: 0)))
        XCTAssertEqual(names(before.root.child(named: "duplicates")), ["similar"])
        photos.append(sized("q/copy.jpg", 105, (2019, 1, 1, 10)))
        let groups: [Int32: UInt32] = [5: 1, 40: 1]
        let updated = try XCTUnwrap(LibraryViews.updated(before, photos: photos,
                                                         ViewSettings(emptyMtime: Timestamp(seconds: 0)).grouping(duplicates: groups)))
        let built = LibraryViews.build(photos: photos, ViewSettings(emptyMtime: Timestamp(seconds: 0)).grouping(duplicates: groups))
        XCTAssertEqual(names(updated.root.child(named: "duplicates")), ["5.jpg", "similar"])
        guard case .folder(let u)? = updated.root.child(named: "duplicates"), case .folder(let b)? = built.root.child(named: "duplicates") else { return XCTFail() }
        XCTAssertEqual(names(u.child(named: "5.jpg")), ["5.jpg", "copy.jpg"])
        XCTAssertEqual(names(u.child(named: "5.jpg")), names(b.child(named: "5.jpg")))
    }
}
