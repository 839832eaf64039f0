import AlbumCore
import AlbumSystem
@testable import AlbumLive
import AlbumMetadata
import AlbumSample
import Glibc
import XCTest

final class LibraryStateTests: XCTestCase {
    func photo(_ path: String, size: Int64 = 1) -> Photo {
        let time = CaptureTime(local: LocalDateTime(year: 2024, month: 1, day: 1), utcOffsetSeconds: 0)
        return Photo(relativePath: path, format: path.lowercased().hasSuffix(".png") ? .png : .jpeg, identity: FileIdentity(inode: 1, size: size, mtime: Timestamp(seconds: 0)),
                     decisions: PhotoDecisions(capture: CaptureDecision(time: time, source: .exifDateTimeOriginal),
                                               captureInstant: Timestamp(seconds: 0),
                                               screenshot: ScreenshotDecision(isScreenshot: false, reason: "t")))
    }

    /// The photo a scan decides of `file` (its path, identity and ctime when read).
    func photo(of file: IndexedFile) -> Photo {
        let p = photo(file.relativePath)
        return Photo(relativePath: p.relativePath, format: p.format, identity: file.identity,
                     decisions: PhotoDecisions(capture: p.capture, captureInstant: p.captureInstant, screenshot: p.screenshot),
                     changedWhenRead: file.changedWhenRead)
    }

    func file(_ path: String, size: Int64 = 1) -> IndexedFile {
        IndexedFile(relativePath: path, identity: FileIdentity(inode: 1, size: size, mtime: Timestamp(seconds: 0)), kind: .slimPhoto(.jpeg))
    }

    /// Every path's photo is where its entry says, after any mix of puts and drops.
    func assertConsistent(_ state: LibraryState, _ expected: [String: Int64], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(state.photoCount, expected.count, file: file, line: line)
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: state.photos.map { ($0.relativePath, $0.identity.size) }), expected, file: file, line: line)
        for (path, entry) in state.entries {
            guard let i = entry.photo else { continue }
            XCTAssertEqual(state.photos[Int(i)].relativePath, path, "\(path)'s position", file: file, line: line)
        }
        XCTAssertEqual(state.entries.values.filter { $0.photo != nil }.count, expected.count, file: file, line: line)
    }

    func testPutReplaceAndDropKeepTheArrayDenseAndTheMapRight() {
        var state = LibraryState()
        for name in ["a", "b", "c", "d"] { state.put(file(name), photo: photo(name)) }
        state.put(file("b"), photo: photo("b", size: 7))
        assertConsistent(state, ["a": 1, "b": 7, "c": 1, "d": 1])
        state.drop("a")  // the last photo moves into the hole
        state.drop("x")  // unknown: nothing happens
        assertConsistent(state, ["b": 7, "c": 1, "d": 1])
        state.put(file("d"), photo: nil)  // no longer a photo: still a known file
        XCTAssertTrue(state.knows("d"))
        XCTAssertEqual(state.fileCount, 3)
        state.put(file("c"), photo: photo("c", size: 3))
        assertConsistent(state, ["b": 7, "c": 3])
        state.put(file("d"), photo: photo("d", size: 4))
        assertConsistent(state, ["b": 7, "c": 3, "d": 4])
        // Random mixes, checked against a plain map.
        var expected: [String: Int64] = [:]
        state = LibraryState()
        var rng = SeededGenerator.forTest(0x57A7E)
        for step in 0..<3000 {
            let path = "p\(Int.random(in: 0..<60, using: &rng))"
            switch Int.random(in: 0..<3, using: &rng) {
            case 0:
                state.put(file(path), photo: photo(path, size: Int64(step)))
                expected[path] = Int64(step)
            case 1:
                state.put(file(path), photo: nil)
                expected[path] = nil
            default:
                state.drop(path)
                expected[path] = nil
            }
        }
        assertConsistent(state, expected)
    }

    /// The files counted below each folder, once counting began, follow puts, drops and moves
    /// (checked against the paths known after each step of random mixes).
    func testFilesBelowAFolderAreCountedAsTheyComeAndGo() {
        var state = LibraryState()
        var rng = SeededGenerator.forTest(0xC0_FFEE)
        let folders = ["", "a", "a/b", "a/b/c", "ab", "d"]
        func somewhere() -> String {
            let folder = folders[Int.random(in: 0..<folders.count, using: &rng)]
            let name = "p\(Int.random(in: 0..<8, using: &rng)).jpg"
            return folder.isEmpty ? name : folder + "/" + name
        }
        for step in 0..<2000 {
            if step == 50 { state.countFolders() }
            let path = somewhere()
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: state.put(file(path), photo: photo(path))
            case 1: state.put(file(path), photo: nil)
            case 2: state.drop(path)
            default: _ = state.move(from: somewhere(), file(path), photo: photo(path))
            }
            if step % 10 == 0 || step == 1999 {
                for folder in folders {
                    XCTAssertEqual(state.fileCount(under: folder), state.paths.filter { $0.isWithin(folder: folder) }.count, "step \(step): \(folder)")
                }
            }
        }
    }

    /// Images of a format not shown (HEIF without `-o heif=on`: the scanner decides no photo for
    /// them) are counted, as files come, change and go.
    /// A file moved to a path free in the state takes its old entry's photo place; otherwise (a
    /// path taken, no photo, no entry at `from`) it is a drop and a put. Either way the array
    /// stays dense and the map right.
    func testAMoveKeepsThePhotosPlace() {
        var state = LibraryState()
        for name in ["a/1", "a/2", "a/3", "b/4"] { state.put(file(name), photo: photo(name)) }
        let position = state.entries["a/2"]?.photo
        XCTAssertTrue(state.move(from: "a/2", file("c/2"), photo: photo("c/2")))
        XCTAssertEqual(state.entries["c/2"]?.photo, position, "in the old entry's place")
        XCTAssertNil(state.entries["a/2"])
        assertConsistent(state, ["a/1": 1, "c/2": 1, "a/3": 1, "b/4": 1])
        XCTAssertTrue(state.move(from: "a/3", file("b/4"), photo: photo("b/4")), "over another file")
        assertConsistent(state, ["a/1": 1, "c/2": 1, "b/4": 1])
        XCTAssertFalse(state.move(from: "a/1", file("c/1", size: 7), photo: photo("c/1", size: 7)), "another file at a/1")
        XCTAssertFalse(state.move(from: "nowhere", file("c/5"), photo: photo("c/5")))
        assertConsistent(state, ["a/1": 1, "c/2": 1, "b/4": 1])
        state.put(IndexedFile(relativePath: "a/notes.txt", identity: file("x").identity, kind: .problem("not a JPEG or PNG")), photo: nil)
        XCTAssertTrue(state.move(from: "a/notes.txt", IndexedFile(relativePath: "c/notes.txt", identity: file("x").identity, kind: .problem("not a JPEG or PNG")), photo: nil))
        XCTAssertEqual(state.report().problems.map(\.relativePath), ["c/notes.txt"], "a problem moves with its file")
        XCTAssertTrue(state.move(from: "c/2", IndexedFile(relativePath: "d/2", identity: file("c/2").identity, kind: .ignored), photo: nil),
                      "no longer a photo: its place filled")
        assertConsistent(state, ["a/1": 1, "b/4": 1])
        XCTAssertEqual(state.fileCount, 4)
    }

    /// What a scan is offered of files it finds at new paths: each file by its inode, with its
    /// photo; none for a file that could not be read, nor for inode 0.
    func testHeldFilesAreFoundByInode() {
        var state = LibraryState()
        func identified(_ path: String, inode: UInt64) -> IndexedFile {
            IndexedFile(relativePath: path, identity: FileIdentity(inode: inode, size: 1, mtime: Timestamp(seconds: 0)), kind: .slimPhoto(.jpeg))
        }
        state.put(identified("a/x.jpg", inode: 5), photo: photo(of: identified("a/x.jpg", inode: 5)))
        state.put(IndexedFile(relativePath: "a/notes.txt", identity: FileIdentity(inode: 6, size: 1, mtime: Timestamp(seconds: 0)), kind: .ignored), photo: nil)
        state.put(identified("a/zero.jpg", inode: 0), photo: photo(of: identified("a/zero.jpg", inode: 0)))
        var locked = photo(of: identified("a/locked.jpg", inode: 7))
        locked.problems = [ReadFailure.message(Errno(rawValue: EACCES))]
        state.put(identified("a/locked.jpg", inode: 7), photo: locked)
        XCTAssertEqual(state.pathsByInode(), [5: "a/x.jpg", 6: "a/notes.txt", 7: "a/locked.jpg"])
        XCTAssertEqual(state.held(at: "a/x.jpg")?.photo?.relativePath, "a/x.jpg")
        XCTAssertEqual(state.held(at: "a/x.jpg")?.file.identity.inode, 5)
        XCTAssertNotNil(state.held(at: "a/notes.txt"))
        XCTAssertNil(state.held(at: "a/notes.txt")?.photo)
        XCTAssertNil(state.held(at: "a/locked.jpg"), "read again wherever it is")
        XCTAssertNil(state.held(at: "a/none.jpg"))
    }

    func testImagesOfAFormatNotShownAreCountedAndEveryFileNotShownNamed() {
        var state = LibraryState()
        let scanner = LibraryScanner(root: "/nowhere", rules: ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000)),
                                                                         formats: [.jpeg, .png, .video]))
        let identity = FileIdentity(inode: 2, size: 1, mtime: Timestamp(seconds: 0))
        let heic = { (path: String) in IndexedFile(relativePath: path, identity: identity, kind: .slimPhoto(.heif)) }
        func notShown() -> [String: NotShownReason] {
            Dictionary(uniqueKeysWithValues: state.notShown(scanner).files.map { ($0.path, $0.reason) })
        }
        state.put(file("a.jpg"), photo: photo("a.jpg"))
        state.put(heic("b.heic"), photo: nil)
        state.put(heic("c.heic"), photo: nil)
        state.put(IndexedFile(relativePath: "n.txt", identity: identity, kind: .ignored), photo: nil)
        state.put(IndexedFile(relativePath: "d/v.mp3", identity: identity, kind: .ignored), photo: nil)
        state.put(IndexedFile(relativePath: "bad.jpg", identity: identity, kind: .problem("not a JPEG, PNG or HEIF image")), photo: nil)
        state.put(IndexedFile(relativePath: "locked", identity: identity, kind: .problem(ReadFailure.message(Errno(rawValue: EACCES)))),
                  photo: nil)
        XCTAssertEqual(state.notShown(scanner).images, 2)
        XCTAssertEqual(notShown(), ["b.heic": .hiddenByOption, "c.heic": .hiddenByOption, "n.txt": .document, "d/v.mp3": .sound,
                                    "bad.jpg": .damaged, "locked": .unreadable])
        state.put(heic("b.heic"), photo: nil)  // the same file again: still one
        XCTAssertEqual(state.notShown(scanner).images, 2)
        state.put(file("c.heic"), photo: photo("c.heic"))  // rewritten as a JPEG
        XCTAssertEqual(state.notShown(scanner).images, 1)
        state.drop("b.heic")
        state.drop("d/v.mp3")
        XCTAssertEqual(state.notShown(scanner).images, 0)
        XCTAssertEqual(notShown(), ["n.txt": .document, "bad.jpg": .damaged, "locked": .unreadable])
    }

    func testTheViewsShareTheStatesArray() {
        var state = LibraryState()
        for i in 0..<100 { state.put(file("p\(i)"), photo: photo("p\(i)")) }
        let library = LibraryViews.build(photos: state.photos, ViewSettings(emptyMtime: Timestamp(seconds: 0)))
        library.photos.withUnsafeBufferPointer { a in
            state.photos.withUnsafeBufferPointer { b in XCTAssertEqual(a.baseAddress, b.baseAddress, "no copy per publish") }
        }
    }

    /// After a first scan, the map and the array hold no room reserved ahead of the walk; each
    /// is compacted on its own (the array before the last publish, the map after it), and the
    /// map's compaction leaves the array the tree shown shares alone.
    /// The capacity an array of photos reserved for `count` gets: the allocator's size class for
    /// it holds a few more, more or fewer with the size of a photo.
    static func capacity(reserving count: Int) -> Int {
        var photos: [Photo] = []
        photos.reserveCapacity(count)
        return photos.capacity
    }

    func testCompactingKeepsEveryFileAndFreesWhatWasReserved() {
        var state = LibraryState()
        state.expect(atLeast: 1_000)
        state.reserve(more: 4_000)
        for i in 0..<300 { state.put(file("p\(i)"), photo: photo("p\(i)")) }
        state.put(IndexedFile(relativePath: "notes.txt", identity: file("notes.txt").identity, kind: .ignored), photo: nil)
        XCTAssertGreaterThan(state.entries.capacity, 2 * state.entries.count)
        let shown = state.photos
        state.compactMap()
        XCTAssertLessThanOrEqual(state.entries.capacity, 2 * state.entries.count)
        state.photos.withUnsafeBufferPointer { a in
            shown.withUnsafeBufferPointer { b in XCTAssertEqual(a.baseAddress, b.baseAddress, "the shown tree's array kept") }
        }
        state.compactPhotos()
        XCTAssertLessThanOrEqual(state.photos.capacity, Self.capacity(reserving: 300 + 300 / 16))
        assertConsistent(state, Dictionary(uniqueKeysWithValues: (0..<300).map { ("p\($0)", Int64(1)) }))
        XCTAssertEqual(state.fileCount, 301)
        XCTAssertNotNil(state.known("notes.txt"))
    }

    /// Room made for the rest of a scan once its size is known (its walk ended) leaves the photo
    /// array the size of what it will hold, however far it had grown ahead: then the scan's end
    /// has nothing to compact.
    func testRoomForTheRestSizesThePhotoArrayToWhatItWillHold() {
        var state = LibraryState()
        state.reserve(more: 4_000)
        for i in 0..<300 { state.put(file("p\(i)"), photo: photo("p\(i)")) }
        XCTAssertGreaterThan(state.photos.capacity, 1_000)
        state.reserve(more: 100)
        XCTAssertGreaterThanOrEqual(state.photos.capacity, 400)
        XCTAssertLessThanOrEqual(state.photos.capacity, Self.capacity(reserving: 400 + 400 / 16))
        for i in 300..<400 { state.put(file("p\(i)"), photo: photo("p\(i)")) }
        let capacity = state.photos.capacity
        state.compactPhotos()
        XCTAssertEqual(state.photos.capacity, capacity, "nothing left to compact")
        assertConsistent(state, Dictionary(uniqueKeysWithValues: (0..<400).map { ("p\($0)", Int64(1)) }))
    }

    /// A scan compares its walk with what the mount knows, through the state itself: identity
    /// and ctime when read, which a photo keeps once its evidence is dropped.
    func testAScanLooksUpKnownFilesInTheState() {
        var state = LibraryState()
        XCTAssertTrue(state.isEmpty)
        var evidence = PhotoEvidence()
        evidence.make = "Canon"
        let read = IndexedFile(relativePath: "a/x.jpg", identity: file("a/x.jpg", size: 5).identity, kind: .photo(.jpeg, evidence),
                               changedWhenRead: Timestamp(seconds: 1_700_000_000, nanoseconds: 5))
        state.put(read, photo: photo(of: read))
        XCTAssertFalse(state.isEmpty)
        XCTAssertEqual(state.known("a/x.jpg")?.identity.size, 5)
        XCTAssertEqual(state.known("a/x.jpg")?.kind, .slimPhoto(.jpeg), "slim")
        XCTAssertEqual(state.known("a/x.jpg")?.changedWhenRead, Timestamp(seconds: 1_700_000_000, nanoseconds: 5))
        XCTAssertNil(state.known("a/y.jpg"))
    }

    /// A file that could not be read is not offered to a scan as known (the scan reads it again:
    /// a chmod changes none of size, mtime, inode); one whose content is bad is.
    func testFilesThatCouldNotBeReadAreReadAgain() {
        var state = LibraryState()
        var locked = photo("a/locked.jpg")
        locked.problems = [ReadFailure.message(Errno(rawValue: EACCES))]
        state.put(file("a/locked.jpg"), photo: locked)
        state.put(IndexedFile(relativePath: "a/notes.txt", identity: file("x").identity, kind: .problem(ReadFailure.message(.ioError))), photo: nil)
        state.put(IndexedFile(relativePath: "a/fake.jpg", identity: file("x").identity, kind: .problem("not a JPEG or PNG")), photo: nil)
        XCTAssertNil(state.known("a/locked.jpg"))
        XCTAssertNil(state.known("a/notes.txt"))
        XCTAssertNotNil(state.known("a/fake.jpg"), "bad content does not change by itself: not read again")
        XCTAssertTrue(state.knows("a/locked.jpg"), "still listed meanwhile")
        state.put(file("a/locked.jpg"), photo: photo("a/locked.jpg"))  // readable again
        XCTAssertNotNil(state.known("a/locked.jpg"))
        state.drop("a/notes.txt")
        XCTAssertNil(state.known("a/notes.txt"))
    }

    func testProblemsComeFromTheDecisionsSoSlimRecordsKeepThem() {
        var state = LibraryState()
        let identity = FileIdentity(inode: 2, size: 3, mtime: Timestamp(seconds: 0))
        var evidence = PhotoEvidence()
        evidence.problems = ["corrupt EXIF"]
        let file = IndexedFile(relativePath: "a/broken.jpg", identity: identity, kind: .photo(.jpeg, evidence))
        var broken = photo(of: file)
        broken.problems = ["corrupt EXIF"]
        state.put(file.slimmed, photo: broken)
        state.put(IndexedFile(relativePath: "a/notes.jpg", identity: identity, kind: .problem("not a JPEG or PNG")), photo: nil)
        XCTAssertEqual(state.report().problems.map { "\($0.relativePath): \($0.message)" },
                       ["a/broken.jpg: corrupt EXIF", "a/notes.jpg: not a JPEG or PNG"])
        XCTAssertEqual(state.known("a/broken.jpg"), file.slimmed, "no evidence kept in memory")
        // Fixed: the line goes (a photo fixed, a file removed, a file that is readable again).
        state.put(IndexedFile(relativePath: "b/odd.jpg", identity: identity, kind: .problem("unreadable")), photo: nil)
        XCTAssertEqual(state.report().problems.count, 3)
        XCTAssertEqual(state.report().filesSeen, 3)
        state.put(file.slimmed, photo: photo("a/broken.jpg"))
        state.drop("a/notes.jpg")
        state.put(IndexedFile(relativePath: "b/odd.jpg", identity: identity, kind: .ignored), photo: nil)
        XCTAssertEqual(state.report().problems.count, 0)
        XCTAssertEqual(state.report().filesSeen, 2)
        XCTAssertEqual(state.photoCount, 1)
    }
}
