@testable import AlbumCore
import XCTest

/// The views after photos were added, removed or changed, made from the views before
/// (`LibraryViews.updated`), are the views `build` makes of the same photos, entry for entry;
/// where `updated` cannot tell them it says so (nil), and the caller builds.
final class ViewsUpdateTests: XCTestCase {
    /// Whether two trees are the same: names, times, order, names by position, the names that are
    /// not the photos' own, slots and sizes, folder by folder.
    func assertSame(_ a: VirtualFolder, _ b: VirtualFolder, _ path: String = "", file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.name, b.name, path, file: file, line: line)
        XCTAssertEqual(a.mtime, b.mtime, "\(path) mtime", file: file, line: line)
        switch (a.entries, b.entries) {
        case (.folders(let x), .folders(let y)):
            XCTAssertEqual(x.map(\.name), y.map(\.name), path, file: file, line: line)
            for (f, g) in zip(x, y) { assertSame(f, g, path + "/" + f.name, file: file, line: line) }
        case (.files(let x), .files(let y)):
            XCTAssertEqual(x.map(\.name), y.map(\.name), path, file: file, line: line)
        case (.photos(let x), .photos(let y)):
            XCTAssertEqual(x.members, y.members, "\(path) members", file: file, line: line)
            XCTAssertEqual(x.byName, y.byName, "\(path) by name", file: file, line: line)
            XCTAssertEqual(x.renamed, y.renamed, "\(path) renamed", file: file, line: line)
            XCTAssertEqual(x.slot, y.slot, path, file: file, line: line)
            XCTAssertEqual(x.thumbnailBox, y.thumbnailBox, path, file: file, line: line)
            XCTAssertEqual(x.photos.count, y.photos.count, path, file: file, line: line)
        default:
            XCTFail("\(path): other kinds of entries", file: file, line: line)
        }
    }

    /// Random libraries with names that clash across folders, photos of the same instant, days
    /// in several zones, screenshots, videos, unrenderable files and names made safe; photos
    /// added a few at a time.
    func testAddedPhotosGiveTheTreeABuildGives() {
        var seed: UInt64 = 0x5EED_0F_1DEA
        func random(_ n: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(n))
        }
        var serial = 0
        var paths: Set<String> = []
        // A photo changed may move to another camera's folder, or leave one empty.
        let cameras = [CameraNames.unknown, "Canon EOS R5", "Apple iPhone 15 Pro", "Nikon D850"]
        func newPhoto() -> Photo {
            serial += 1
            var path: String
            repeat {
                let ext = ["jpg", "JPG", "png", "mov", "heic"][random(5)]
                // Mostly names of their own; a few clash (IMG_0 to IMG_7) or are made safe.
                let name = random(5) == 0 ? "IMG_\(random(8))" : ["DSC_", "bad\nname", "-dash", "P"][random(4)] + "\(serial)"
                path = ["a", "b/c", "d"][random(3)] + "\(random(10))/\(name).\(ext)"
            } while !paths.insert(path).inserted
            var p = makePhoto(path,
                              (2024, 1 + random(2), 1 + random(3), random(3) * 8), offset: [0, 3600, -18000][random(3)],
                              screenshot: random(6) == 0, second: random(2))
            if random(10) == 0 { p.problems = [Unrenderable.empty] }
            p.camera = cameras[random(cameras.count)]
            p.isFavorite = random(4) == 0
            // Paris, Lyon, Kyoto and Paris (Texas): a city's name in two countries is two folders;
            // GeoNames' two Vincents of California are one.
            if random(3) == 0 { p.place = [7255, 7347, 13174, 21522, 23191, 23600][random(6)] }
            if random(8) == 0 { p.holdingAVideo() }
            return p
        }
        // As `LibraryState` changes its array: a photo added at the end, a photo removed leaves
        // the last in its place, a photo changed in place keeps its index.
        func remove(_ photos: inout [Photo]) {
            let hole = random(photos.count)
            let last = photos.removeLast()
            paths.remove(hole < photos.count ? photos[hole].relativePath : last.relativePath)
            if hole < photos.count { photos[hole] = last }
        }
        func change(_ photos: inout [Photo]) {
            let i = random(photos.count)
            var p = makePhoto(photos[i].relativePath, (2024, 1 + random(2), 1 + random(3), random(3) * 8), offset: [0, 3600, -18000][random(3)],
                              screenshot: random(6) == 0, second: random(2))
            if random(10) == 0 { p.problems = [Unrenderable.empty] }
            p.camera = cameras[random(cameras.count)]
            p.isFavorite = random(4) == 0
            if random(8) == 0 { p.holdingAVideo() }
            photos[i] = p
        }
        var merged: [String: Int] = [:]
        var taken = 0, withMotion = 0
        for round in 0..<40 {
            paths = []
            var photos = (0..<(200 + random(200))).map { _ in newPhoto() }
            let boxes = [ThumbnailBox.default] + (random(2) == 0 ? [ThumbnailBox(width: 64, height: 64)!] : [])
            let settings = ViewSettings(thumbnailBoxes: boxes, withStatus: true, withPicks: true, emptyMtime: Timestamp(seconds: 7))
            var shown = LibraryViews.build(photos: photos, settings)
            for step in 0..<8 {
                let count = photos.count, names = Set(photos.map(\.fileName))
                let kind = ["added", "removed", "changed", "all three"][random(4)]
                if kind == "added" || kind == "all three" { photos += (0..<(1 + random(6))).map { _ in newPhoto() } }
                let takes = photos[min(count, photos.count)...].contains { names.contains($0.fileName) }
                if kind == "removed" || kind == "all three" { for _ in 0..<(1 + random(4)) { remove(&photos) } }
                if kind == "changed" || kind == "all three" { for _ in 0..<(1 + random(4)) { change(&photos) } }
                let built = LibraryViews.build(photos: photos, settings)
                if let made = LibraryViews.updated(shown, photos: photos, settings) {
                    if made.filePhotoCount < made.photos.count { withMotion += 1 }
                    assertSame(made.root, built.root, "round \(round) step \(step): \(kind)")
                    XCTAssertEqual(made.livePartners, built.livePartners)
                    XCTAssertEqual(made.photos.map(\.relativePath), built.photos.map(\.relativePath))
                    merged[kind, default: 0] += 1
                    if takes && kind == "added" { taken += 1 }
                    shown = made
                } else {
                    shown = built
                }
            }
        }
        for kind in ["added", "removed", "changed", "all three"] {
            XCTAssertGreaterThan(merged[kind] ?? 0, 60, "\(kind): merged, but for a tag taken or lengthened: \(merged)")
        }
        XCTAssertGreaterThan(taken, 15, "among them, photos added under a name taken")
        XCTAssertGreaterThan(withMotion, 100, "steps merged in libraries holding motion photos")
    }

    func names(_ library: Library, _ view: String) -> [String] {
        guard case .photos(let entries)? = library.root.subfolders.first(where: { $0.name == view })?.entries else { return [] }
        return entries.members.map { entries.name(ofPhoto: Int($0)) }
    }

    /// A photo added under a name taken: a later path than the holder's takes its tag; an earlier
    /// one takes the name, and the holder its tag; two added under one name share it the same way.
    func testAnAddedPhotoWhoseNameIsTakenSharesItAsBuildDoes() throws {
        let photos = [makePhoto("b/IMG_1.jpg", (2024, 1, 1, 10)), makePhoto("b/IMG_2.jpg", (2024, 1, 1, 11))]
            + (0..<100).map { makePhoto("f/P\($0).jpg", (2023, 1, 1, 10)) }
        var shown = LibraryViews.build(photos: photos, ViewSettings(thumbnailBoxes: [.default], emptyMtime: Timestamp(seconds: 0)))
        let additions = [[makePhoto("c/IMG_1.jpg", (2024, 1, 1, 9))],
                         [makePhoto("a/IMG_1.jpg", (2024, 1, 1, 8))],
                         [makePhoto("d/IMG_3.jpg", (2024, 1, 1, 7)), makePhoto("0/IMG_3.jpg", (2024, 1, 1, 6)), makePhoto("e/IMG_2.jpg", (2024, 1, 2, 6))]]
        var all = photos
        for more in additions {
            all += more
            let settings = ViewSettings(thumbnailBoxes: [.default], emptyMtime: Timestamp(seconds: 0))
            let made = try XCTUnwrap(LibraryViews.updated(shown, photos: all, settings))
            assertSame(made.root, LibraryViews.build(photos: all, settings).root)
            shown = made
        }
        func tagged(_ path: String) -> String { "IMG_\(path.dropFirst(6).prefix(1))~" + EntryNames.tag(for: path) + ".jpg" }
        XCTAssertEqual(names(shown, "non-screenshots").filter { $0.hasPrefix("IMG_") }, ["IMG_2~" + EntryNames.tag(for: "e/IMG_2.jpg") + ".jpg", "IMG_2.jpg",
                                                         tagged("b/IMG_1.jpg"), tagged("c/IMG_1.jpg"), "IMG_1.jpg",
                                                         tagged("d/IMG_3.jpg"), "IMG_3.jpg"])
    }

    /// A tag taken: an added photo that wants a name another holds as its tag, or one whose tag
    /// another holds or wants as its own name. `build` then gives a longer tag, so `updated`
    /// leaves these to `build`.
    func testATagTakenIsLeftToBuild() {
        let filler = (0..<100).map { makePhoto("f/P\($0).jpg", (2023, 1, 1, 10)) }
        let tag = "IMG_1~" + EntryNames.tag(for: "c/IMG_1.jpg") + ".jpg"
        let longer = "IMG_1~" + EntryNames.tag(for: "c/IMG_1.jpg", hexDigits: 8) + ".jpg"
        func nonScreenshots(_ photos: [Photo]) -> [String] {
            names(LibraryViews.build(photos: photos,
                                     ViewSettings(emptyMtime: Timestamp(seconds: 0))), "non-screenshots").filter { $0.hasPrefix("IMG_") }
        }
        let cases: [(before: [Photo], added: [Photo])] = [
            ([makePhoto("b/IMG_1.jpg", (2024, 1, 1, 10)), makePhoto("c/IMG_1.jpg", (2024, 1, 1, 11))], [makePhoto("d/" + tag, (2024, 1, 1, 9))]),
            ([makePhoto("b/IMG_1.jpg", (2024, 1, 1, 10)), makePhoto("d/" + tag, (2024, 1, 1, 9))], [makePhoto("c/IMG_1.jpg", (2024, 1, 1, 11))]),
            ([makePhoto("b/IMG_1.jpg", (2024, 1, 1, 10))], [makePhoto("c/IMG_1.jpg", (2024, 1, 1, 11)), makePhoto("d/" + tag, (2024, 1, 1, 9))]),
        ]
        for (k, (before, added)) in cases.enumerated() {
            let shown = LibraryViews.build(photos: before + filler, ViewSettings(emptyMtime: Timestamp(seconds: 0)))
            let all = before + filler + added
            XCTAssertTrue(nonScreenshots(all).contains(longer), "case \(k)")
            XCTAssertNil(LibraryViews.updated(shown, photos: all, ViewSettings(emptyMtime: Timestamp(seconds: 0))), "case \(k)")
        }
    }

    /// A photo gone whose name made another's tag longer: `build` gives that one its short tag
    /// again, so `updated` leaves it to `build`; the same photo gone where no tag was longer is
    /// taken out, and the next photo wanting a name its holder left takes it.
    func testANameGoneThatMadeATagLongerIsLeftToBuild() throws {
        let filler = (0..<100).map { makePhoto("f/P\($0).jpg", (2023, 1, 1, 10)) }
        let tag = "IMG_1~" + EntryNames.tag(for: "c/IMG_1.jpg") + ".jpg"
        let photos = filler + [makePhoto("b/IMG_1.jpg", (2024, 1, 1, 10)), makePhoto("c/IMG_1.jpg", (2024, 1, 1, 11)),
                               makePhoto("d/" + tag, (2024, 1, 1, 9))]
        let shown = LibraryViews.build(photos: photos, ViewSettings(emptyMtime: Timestamp(seconds: 0)))
        XCTAssertTrue(names(shown, "non-screenshots").contains("IMG_1~" + EntryNames.tag(for: "c/IMG_1.jpg", hexDigits: 8) + ".jpg"))
        let without = Array(photos.dropLast())
        XCTAssertTrue(names(LibraryViews.build(photos: without,
                                               ViewSettings(emptyMtime: Timestamp(seconds: 0))), "non-screenshots").contains(tag))
        XCTAssertNil(LibraryViews.updated(shown, photos: without, ViewSettings(emptyMtime: Timestamp(seconds: 0))))
        // Without the literal tag: b's photo gone, c's takes the plain name.
        let plain = LibraryViews.build(photos: without, ViewSettings(emptyMtime: Timestamp(seconds: 0)))
        var rest = without
        rest[100] = rest.removeLast()
        let made = try XCTUnwrap(LibraryViews.updated(plain, photos: rest, ViewSettings(emptyMtime: Timestamp(seconds: 0))))
        assertSame(made.root, LibraryViews.build(photos: rest, ViewSettings(emptyMtime: Timestamp(seconds: 0))).root)
        XCTAssertEqual(names(made, "non-screenshots").filter { $0.hasPrefix("IMG_") }, ["IMG_1.jpg"])
    }

    /// A Live Photo parted, a video shown alone paired by a still added, nothing changed, or more
    /// changed than merging pays for: nil. A video added paired with a still shown (it stays out
    /// of `videos`), a photo changed, or gone, with one added: merged, as `build` makes them.
    func testPairsChangedOrMuchChangedAreLeftToBuild() throws {
        let photos = (0..<100).map { makePhoto("a/IMG_\($0).jpg", (2024, 1, 1 + $0 % 5, 10)) }
        let shown = LibraryViews.build(photos: photos, ViewSettings(emptyMtime: Timestamp(seconds: 0)))
        XCTAssertNil(LibraryViews.updated(shown, photos: photos, ViewSettings(emptyMtime: Timestamp(seconds: 0))))
        XCTAssertNil(LibraryViews.updated(shown, photos: photos + (0..<10).map { makePhoto("b/\($0).jpg", (2024, 1, 1, 9)) },
                                          ViewSettings(emptyMtime: Timestamp(seconds: 0))), "a tenth of the library: built")
        var still = makePhoto("a/LIVE.jpg", (2024, 1, 1, 9))
        var motion = makePhoto("a/LIVE.mov", (2024, 1, 1, 9))
        still.liveIdentifier = 42
        motion.liveIdentifier = 42
        let withStill = LibraryViews.build(photos: photos + [still], ViewSettings(emptyMtime: Timestamp(seconds: 0)))
        let paired = LibraryViews.build(photos: photos + [still, motion], ViewSettings(emptyMtime: Timestamp(seconds: 0)))
        let made = try XCTUnwrap(LibraryViews.updated(withStill, photos: photos + [still, motion],
                                                      ViewSettings(emptyMtime: Timestamp(seconds: 0))), "a video added paired")
        assertSame(made.root, paired.root)
        XCTAssertEqual(made.livePartners, [100: 101, 101: 100])
        XCTAssertEqual(names(paired, "videos"), [], "the motion part is no video of its own")
        let both = try XCTUnwrap(LibraryViews.updated(shown, photos: photos + [still, motion],
                                                      ViewSettings(emptyMtime: Timestamp(seconds: 0))), "a Live Photo added whole")
        assertSame(both.root, paired.root)
        let withMotion = LibraryViews.build(photos: photos + [motion], ViewSettings(emptyMtime: Timestamp(seconds: 0)))
        XCTAssertEqual(names(withMotion, "videos"), ["LIVE.mov"])
        XCTAssertNil(LibraryViews.updated(withMotion, photos: photos + [motion, still],
                                          ViewSettings(emptyMtime: Timestamp(seconds: 0))), "a video shown paired")
        XCTAssertNil(LibraryViews.updated(paired, photos: photos + [still], ViewSettings(emptyMtime: Timestamp(seconds: 0))), "parted")
        var changed = photos
        changed[3] = makePhoto("a/IMG_3.jpg", (2023, 1, 1, 10))
        XCTAssertNotNil(LibraryViews.updated(shown, photos: changed + [makePhoto("a/x.jpg", (2024, 1, 1, 9))],
                                             ViewSettings(emptyMtime: Timestamp(seconds: 0))))
        XCTAssertNotNil(LibraryViews.updated(shown, photos: Array(photos.dropLast()), ViewSettings(emptyMtime: Timestamp(seconds: 0))))
    }

    /// The tree `updated` makes, which is there and is `build`'s of the same photos: folders,
    /// pairs both ways (the xattrs' partners) and the photos with their videos after them.
    @discardableResult
    func assertUpdatedAsBuilt(_ shown: Library, _ photos: [Photo], _ what: String, file: StaticString = #filePath,
                              line: UInt = #line) throws -> Library {
        let settings = ViewSettings(thumbnailBoxes: [.default], withStatus: true, withPicks: true, emptyMtime: Timestamp(seconds: 0))
        let built = LibraryViews.build(photos: photos, settings)
        let made = try XCTUnwrap(LibraryViews.updated(shown, photos: photos, settings), "\(what): merged", file: file, line: line)
        assertSame(made.root, built.root, what, file: file, line: line)
        XCTAssertEqual(made.livePartners, built.livePartners, what, file: file, line: line)
        XCTAssertEqual(made.rawPartners, built.rawPartners, what, file: file, line: line)
        XCTAssertEqual(made.photos.map(\.relativePath), built.photos.map(\.relativePath), what, file: file, line: line)
        XCTAssertEqual(made.photos.map(\.motionVideo), built.photos.map(\.motionVideo), what, file: file, line: line)
        return made
    }

    func byDateNames(_ library: Library, day: String) -> [String] {
        let days = library.root.subfolders.first { $0.name == LibraryViews.byDate }?.subfolders.flatMap(\.subfolders).flatMap(\.subfolders)
        return days?.first { $0.name == day }?.children.map(\.name) ?? []
    }

    /// A library holding motion photos: a plain photo added, removed or changed, a motion photo
    /// added (its video beside it in `by-date/`, paired both ways, in no flat view), removed (its
    /// video goes), changed into a plain photo and back, or changed where its video is not: each
    /// merged, as `build` makes it.
    func testChangesInALibraryWithMotionPhotosAreMergedAsBuildMakesThem() throws {
        var photos = (0..<100).map { makePhoto("a/IMG_\($0).jpg", (2024, 1, 1 + $0 % 5, 10)) }
        for k in [3, 40, 77] { photos[k].holdingAVideo() }
        let settings = ViewSettings(thumbnailBoxes: [.default], withStatus: true, withPicks: true, emptyMtime: Timestamp(seconds: 0))
        var shown = LibraryViews.build(photos: photos, settings)
        XCTAssertEqual(shown.photos.count, 103)

        photos.append(makePhoto("b/plain.jpg", (2024, 1, 2, 9)))
        shown = try assertUpdatedAsBuilt(shown, photos, "a plain photo added")
        XCTAssertEqual(shown.livePartners[Int32(shown.filePhotoCount)], 3, "the videos after the photo added, still paired")

        photos[10] = photos.removeLast()
        shown = try assertUpdatedAsBuilt(shown, photos, "a plain photo removed")
        photos[20] = makePhoto("a/IMG_20.jpg", (2023, 6, 1, 10))
        shown = try assertUpdatedAsBuilt(shown, photos, "a plain photo changed")

        var added = makePhoto("c/PXL_1.MP.jpg", (2024, 1, 3, 12))
        added.holdingAVideo()
        photos.append(added)
        shown = try assertUpdatedAsBuilt(shown, photos, "a motion photo added")
        let still = Int32(photos.count - 1), video = try XCTUnwrap(shown.photos.firstIndex { $0.relativePath == "c/PXL_1.MP.jpg/PXL_1.MP.mp4" })
        XCTAssertEqual(shown.livePartners[still], Int32(video))
        XCTAssertEqual(shown.livePartners[Int32(video)], still)
        XCTAssertEqual(byDateNames(shown, day: "2024-01-03").prefix(2), ["PXL_1.MP.jpg", "PXL_1.MP.mp4"])
        XCTAssertFalse(names(shown, LibraryViews.videos).contains("PXL_1.MP.mp4"), "no flat view lists it")
        XCTAssertTrue(names(shown, LibraryViews.nonScreenshots).contains("PXL_1.MP.jpg"))

        photos[Int(still)].isFavorite = true
        shown = try assertUpdatedAsBuilt(shown, photos, "a motion photo changed where its video is not")
        photos[Int(still)].camera = "Google Pixel 8"
        shown = try assertUpdatedAsBuilt(shown, photos, "a motion photo's camera changed")

        photos[40] = makePhoto("a/IMG_40.jpg", (2024, 1, 1, 10))
        shown = try assertUpdatedAsBuilt(shown, photos, "a motion photo changed into a plain one")
        XCTAssertFalse(shown.photos.contains { $0.relativePath.hasPrefix("a/IMG_40.jpg/") })
        photos[40].holdingAVideo()
        shown = try assertUpdatedAsBuilt(shown, photos, "and back")
        XCTAssertTrue(shown.photos.contains { $0.relativePath == "a/IMG_40.jpg/IMG_40.mp4" })

        photos[3] = photos.removeLast()
        shown = try assertUpdatedAsBuilt(shown, photos, "a motion photo removed")
        XCTAssertFalse(shown.photos.contains { $0.relativePath.hasPrefix("a/IMG_3.jpg") }, "its video goes with it")
        XCTAssertEqual(shown.photos.count - shown.filePhotoCount, 3)
        XCTAssertEqual(shown.livePartners.count, 6)

        photos.append(makePhoto("c/PXL_1.MP.mp4", (2024, 1, 3, 12)))
        shown = try assertUpdatedAsBuilt(shown, photos, "a file named as a motion photo's video is shown")
        let day = byDateNames(shown, day: "2024-01-03")
        XCTAssertTrue(day.contains("PXL_1.MP.mp4") && day.contains { $0.hasPrefix("PXL_1.MP~") }, "the file takes the name, the video a tag: \(day)")
        photos.removeLast()
        try assertUpdatedAsBuilt(shown, photos, "and gone: the video takes its name back")
    }
}

extension ViewsUpdateTests {
    /// A file added or removed moves every motion photo's video by one (they are after the
    /// files): no change of theirs, however many, which `most` does not count.
    func testVideosMovedByTheFilesCountAreNoChange() throws {
        var photos = (0..<100).map { makePhoto("a/IMG_\($0).jpg", (2024, 1, 1 + $0 % 5, 10)) }
        for k in stride(from: 0, to: 100, by: 10) { photos[k].holdingAVideo() }
        let shown = LibraryViews.build(photos: photos, ViewSettings(emptyMtime: Timestamp(seconds: 0)))
        let added = PairedPhotos(scanned: photos + [makePhoto("b/new.jpg", (2024, 1, 2, 9))]).photos
        let changes = try XCTUnwrap(PhotoChanges(before: shown.photos, after: added, most: 4), "10 videos moved, 1 photo added")
        XCTAssertEqual(changes.added, [100])
        XCTAssertEqual(changes.gone, [])
        XCTAssertEqual(changes.now?[100], 101)
        XCTAssertEqual(changes.now?[109], 110)
        XCTAssertEqual(changes.now?[99], 99)
        var fewer = photos
        fewer[5] = fewer.removeLast()
        let removed = PairedPhotos(scanned: fewer).photos
        let gone = try XCTUnwrap(PhotoChanges(before: shown.photos, after: removed, most: 4), "10 videos moved, 1 photo removed")
        XCTAssertEqual(gone.gone, [5])
        XCTAssertEqual(gone.added, [])
        XCTAssertEqual(gone.now?[99], 5)
        XCTAssertEqual(gone.now?[100], 99)
        XCTAssertNil(PhotoChanges(before: shown.photos, after: Array(added.dropLast(10)) + added.suffix(10).reversed(), most: 4),
                     "videos that change places among themselves differ")
    }
}

extension Photo {
    /// This still as a motion photo: its file holds a video after the image.
    mutating func holdingAVideo() {
        guard format.isStill else { return }
        identity.size = 5_000
        motionVideo = ByteRange(offset: 3_000, length: 2_000)
    }
}
