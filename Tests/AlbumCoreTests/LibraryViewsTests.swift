@testable import AlbumCore
import XCTest

func makePhoto(_ path: String, _ iso: (Int, Int, Int, Int), offset: Int? = 0, screenshot: Bool = false, second: Int = 0) -> Photo {
    let local = LocalDateTime(year: iso.0, month: iso.1, day: iso.2, hour: iso.3, second: second)
    let time = CaptureTime(local: local, utcOffsetSeconds: offset)
    let utc = TimeZone(identifier: "UTC")!
    let ext = path.split(separator: ".").last?.lowercased() ?? ""
    return Photo(relativePath: path, format: ext == "png" ? .png : ["mov", "mp4"].contains(ext) ? .video : .jpeg,
                 identity: FileIdentity(inode: UInt64(path.hashValue & 0xFFFF), size: 10, mtime: Timestamp(seconds: 0)),
                 decisions: PhotoDecisions(capture: CaptureDecision(time: time, source: .exifDateTimeOriginal),
                                           captureInstant: time.instant(in: utc),
                                           screenshot: ScreenshotDecision(isScreenshot: screenshot, reason: "test")))
}

final class LibraryViewsTests: XCTestCase {
    func names(_ node: VirtualNode?) -> [String] {
        guard case .folder(let f)? = node else { return [] }
        return f.children.map(\.name)
    }

    func testViewsAndOrder() {
        let photos = [
            makePhoto("a/old.jpg", (2020, 1, 1, 10)),
            makePhoto("a/new.jpg", (2024, 5, 17, 10)),
            makePhoto("a/mid.jpg", (2024, 5, 17, 8)),
            makePhoto("s/shot.png", (2023, 3, 1, 10), screenshot: true),
            makePhoto("b/new.jpg", (2024, 5, 17, 10)),
        ]
        let lib = LibraryViews.build(photos: photos, ViewSettings(emptyMtime: Timestamp(seconds: 0)))
        XCTAssertEqual(lib.root.children.map(\.name), ["by-date", "screenshots", "non-screenshots", "videos", "by-camera", "favorites", "media-types", "places", "duplicates", "filter"])
        let byDate = lib.root.child(named: "by-date")
        XCTAssertEqual(names(byDate), ["2024", "2023", "2020"])
        guard case .folder(let y2024)? = byDate.flatMap({ n -> VirtualNode? in if case .folder(let f) = n { return f.child(named: "2024") }; return nil }),
              case .folder(let may)? = y2024.child(named: "2024-05"),
              case .folder(let day)? = may.child(named: "2024-05-17") else { return XCTFail("no 2024-05-17") }
        // Same instant: ties broken by name then path, so a/new.jpg keeps the plain name.
        XCTAssertEqual(day.children.map(\.name), ["new.jpg", "new~dd5a3f.jpg", "mid.jpg"])
        XCTAssertEqual(names(lib.root.child(named: "screenshots")), ["shot.png"])
        XCTAssertEqual(names(lib.root.child(named: "non-screenshots")).count, 4)
        XCTAssertEqual(y2024.mtime, photos[1].captureInstant, "a folder's mtime is its newest photo's")
    }

    func testDayFolderIsTheWrittenDateEvenAcrossZones() {
        // 23:00 at -05:00 is the next day in UTC; it still belongs to the day written on it.
        let p = makePhoto("x.jpg", (2024, 5, 17, 23), offset: -5 * 3600)
        let lib = LibraryViews.build(photos: [p], ViewSettings(emptyMtime: Timestamp(seconds: 0)))
        guard case .folder(let byDate)? = lib.root.child(named: "by-date"), case .folder(let y)? = byDate.child(named: "2024"),
              case .folder(let m)? = y.child(named: "2024-05") else { return XCTFail() }
        XCTAssertEqual(m.children.map(\.name), ["2024-05-17"])
    }

    /// `by-camera/`: a folder per camera by name, newest first inside, a Live Photo's video with
    /// its still whatever its own keys say, every entry the by-date entry's inode slot.
    func testByCameraGroupsEveryPhotoAndVideoUnderItsCamera() {
        var photos = [
            makePhoto("a/r5-old.jpg", (2020, 1, 1, 10)),
            makePhoto("a/r5-new.jpg", (2024, 5, 17, 10)),
            makePhoto("b/IMG_0001.HEIC", (2023, 3, 1, 10)),
            makePhoto("b/IMG_0001.MOV", (2023, 3, 1, 10)),
            makePhoto("c/scan.png", (2022, 1, 1, 10)),
            makePhoto("d/clip.mp4", (2021, 1, 1, 10)),
        ]
        for i in [0, 1] { photos[i].camera = "Canon EOS R5" }
        photos[2].camera = "Apple iPhone 15 Pro"
        photos[2].format = .heif
        photos[2].liveIdentifier = 42
        photos[3].liveIdentifier = 42  // its keys name no camera: it goes with its still
        photos[5].camera = "GoPro HERO11 Black"
        let lib = LibraryViews.build(photos: photos, ViewSettings(emptyMtime: Timestamp(seconds: 0)))
        XCTAssertEqual(lib.livePartners[3], 2, "the pair is a Live Photo")
        guard case .folder(let cameras)? = lib.root.child(named: "by-camera") else { return XCTFail("no by-camera/") }
        XCTAssertEqual(cameras.children.map(\.name), ["Apple iPhone 15 Pro", "Canon EOS R5", "GoPro HERO11 Black", "Unknown"])
        XCTAssertEqual(names(cameras.child(named: "Canon EOS R5")), ["r5-new.jpg", "r5-old.jpg"])
        XCTAssertEqual(names(cameras.child(named: "Apple iPhone 15 Pro")), ["IMG_0001.HEIC", "IMG_0001.MOV"])
        XCTAssertEqual(names(cameras.child(named: "Unknown")), ["scan.png"])
        guard case .folder(let canon)? = cameras.child(named: "Canon EOS R5"), case .photos(let entries) = canon.entries else { return XCTFail() }
        XCTAssertEqual(entries.slot, PhotoSlot.byCamera)
        XCTAssertEqual(PhotoSlot.inodeSlot(entries.slot), PhotoSlot.byDate, "an original has one inode in every view")
        XCTAssertEqual(canon.mtime, photos[1].captureInstant)
    }

    /// `favorites/`: the favourites of every kind, newest first, but a Live Photo's motion part.
    func testFavoritesListTheFavouritesAsTheFlatViewsDo() {
        var photos = [
            makePhoto("a/old.jpg", (2020, 1, 1, 10)),
            makePhoto("a/new.jpg", (2024, 5, 17, 10)),
            makePhoto("a/plain.jpg", (2023, 5, 17, 10)),
            makePhoto("b/IMG_0001.JPG", (2023, 3, 1, 10)),
            makePhoto("b/IMG_0001.MOV", (2023, 3, 1, 10)),
            makePhoto("c/clip.mp4", (2021, 1, 1, 10)),
        ]
        for i in [0, 1, 3, 4, 5] { photos[i].isFavorite = true }
        photos[3].liveIdentifier = 7
        photos[4].liveIdentifier = 7
        let lib = LibraryViews.build(photos: photos, ViewSettings(emptyMtime: Timestamp(seconds: 0)))
        XCTAssertEqual(names(lib.root.child(named: "favorites")), ["new.jpg", "IMG_0001.JPG", "clip.mp4", "old.jpg"])
        guard case .folder(let favorites)? = lib.root.child(named: "favorites"), case .photos(let entries) = favorites.entries else { return XCTFail() }
        XCTAssertEqual(PhotoSlot.inodeSlot(entries.slot), PhotoSlot.byDate)
    }

    /// `-o views=`: only the views named are built; `.albumfs/` stays.
    func testOnlyTheViewsShownAreBuilt() throws {
        let photos = [makePhoto("a/x.jpg", (2020, 1, 1, 10)), makePhoto("s/shot.png", (2023, 3, 1, 10), screenshot: true)]
        let views = try ShownViews.parse("by-camera,screenshots,thumbnails").get()
        let settings = ViewSettings(thumbnailBoxes: [.default], withStatus: true, withPicks: true, views: views, emptyMtime: Timestamp(seconds: 0))
        let lib = LibraryViews.build(photos: photos, settings)
        XCTAssertEqual(lib.root.children.map(\.name), ["screenshots", "by-camera", "thumbnails", ".albumfs"])
        let all = LibraryViews.build(photos: photos,
                                     ViewSettings(thumbnailBoxes: [.default], withStatus: true, withPicks: true, emptyMtime: Timestamp(seconds: 0)))
        XCTAssertEqual(all.root.children.map(\.name), ["by-date", "screenshots", "non-screenshots", "videos", "by-camera", "favorites", "media-types", "places", "duplicates", "filter", "thumbnails", "picked", ".albumfs"])
        XCTAssertEqual(ShownViews.parse("by-date,favourites"), .failure(ShownViews.UnknownView(name: "favourites")))
        XCTAssertEqual(ShownViews.parse("by-date,,videos"), .failure(ShownViews.UnknownView(name: "")))
        XCTAssertEqual(views.description, "screenshots,by-camera,thumbnails")
        // A photo added is merged into the views shown, and no other view comes.
        let many = photos + (0..<40).map { makePhoto("z/\($0).jpg", (2019, 1, 1, 10)) }
        let before = LibraryViews.build(photos: many, settings)
        let updated = try XCTUnwrap(LibraryViews.updated(before, photos: many + [makePhoto("a/y.jpg", (2024, 1, 1, 10))], settings))
        XCTAssertEqual(updated.root.children.map(\.name), ["screenshots", "by-camera", "thumbnails", ".albumfs"])
        guard case .folder(let cameras)? = updated.root.child(named: "by-camera") else { return XCTFail("no by-camera/") }
        XCTAssertEqual(names(cameras.child(named: "Unknown")).prefix(3), ["y.jpg", "shot.png", "x.jpg"])
    }

    func testEmptyLibrary() {
        let lib = LibraryViews.build(photos: [], ViewSettings(emptyMtime: Timestamp(seconds: 42)))
        XCTAssertEqual(lib.root.mtime, Timestamp(seconds: 42))
        XCTAssertEqual(names(lib.root.child(named: "screenshots")), [])
    }

    func testPhotoFoldersFindEveryNameAndStoreOnlyTheExceptions() {
        // Same-named photos, a name with a slash-free but odd character, and plenty of others.
        var photos = (0..<500).map { makePhoto("d\($0 % 7)/IMG_\($0 % 200).JPG", (2024, 1 + $0 % 12, 1 + $0 % 28, $0 % 24)) }
        photos.append(makePhoto("z/Ünïcode name.jpg", (2023, 1, 1, 1)))
        let lib = LibraryViews.build(photos: photos, ViewSettings(thumbnailBoxes: [.default, ThumbnailBox(width: 64, height: 48)!],
                                                                  emptyMtime: Timestamp(seconds: 0)))
        guard case .folder(let flat)? = lib.root.child(named: "non-screenshots"), case .photos(let entries) = flat.entries else { return XCTFail() }
        let names = flat.children.map(\.name)
        XCTAssertEqual(Set(names).count, photos.count, "every name unique")
        XCTAssertEqual(entries.renamed.count, photos.count - 201, "only names that differ from the photo's are stored")
        for (position, name) in names.enumerated() {
            XCTAssertEqual(flat.index(named: name), position, name)
        }
        XCTAssertNil(flat.index(named: "IMG_999.JPG"))
        XCTAssertNil(flat.index(named: ""))
        guard case .folder(let thumbs)? = lib.root.child(named: "thumbnails"),
              case .folder(let big)? = thumbs.child(named: "200x200"), case .folder(let small)? = thumbs.child(named: "64x48") else { return XCTFail() }
        XCTAssertEqual(big.children.map(\.name), small.children.map(\.name))
        XCTAssertTrue(big.children.allSatisfy { $0.name.hasSuffix(".jpg") })
        guard case .file(_, .thumbnail(_, let box), _)? = small.child(named: small.children[3].name) else { return XCTFail() }
        XCTAssertEqual(box, ThumbnailBox(width: 64, height: 48))
    }
}

/// `places/`: country, region and city folders by name, photos newest first inside, as GeoNames
/// names the cities (the system's table).
final class PlacesViewTests: XCTestCase {
    func testCitiesAreFoldersByNameAndOneNameInOneRegionIsOneFolder() throws {
        let g = try XCTUnwrap(Gazetteer.system)
        XCTAssertEqual([23191, 23600].map { g.city($0).name }, ["Vincent", "Vincent"], "two cities of one name in California")
        var photos = [makePhoto("a.jpg", (2024, 1, 1, 10)), makePhoto("b.jpg", (2024, 1, 2, 10)), makePhoto("c.jpg", (2024, 1, 3, 10)),
                      makePhoto("d.jpg", (2024, 1, 4, 10)), makePhoto("e.jpg", (2024, 1, 5, 10)), makePhoto("none.jpg", (2024, 1, 6, 10))]
        for (i, place) in [7255, 23191, 21522, 23600, 7347].enumerated() { photos[i].place = place }
        let lib = LibraryViews.build(photos: photos, ViewSettings(emptyMtime: Timestamp(seconds: 0)))
        guard case .folder(let places)? = lib.root.child(named: "places") else { return XCTFail("no places/") }
        func names(_ f: VirtualFolder) -> [String] { f.children.map(\.name) }
        XCTAssertEqual(names(places), ["France", "United States of America"])
        let france = places.subfolders[0], usa = places.subfolders[1]
        XCTAssertEqual(names(france), ["Auvergne-Rhône-Alpes", "Île-de-France Region"])
        XCTAssertEqual(names(usa), ["California", "Texas"])
        XCTAssertEqual(names(usa.subfolders[0]), ["Vincent"])
        XCTAssertEqual(names(usa.subfolders[0].subfolders[0]), ["d.jpg", "b.jpg"], "both Vincents, newest first")
        XCTAssertEqual(names(france.subfolders[1].subfolders[0]), ["a.jpg"])
        XCTAssertEqual(names(usa.subfolders[1].subfolders[0]), ["c.jpg"], "Paris, Texas")
        let hidden = LibraryViews.build(photos: photos,
                                        ViewSettings(views: try ShownViews.parse("by-date").get(), emptyMtime: Timestamp(seconds: 0)))
        XCTAssertNil(hidden.root.child(named: "places"))
    }
}
