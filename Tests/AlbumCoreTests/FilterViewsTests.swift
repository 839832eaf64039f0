@testable import AlbumCore
import XCTest

/// Filter folders over a small library: which photos each expression selects, in which order,
/// with Live Photo and RAW pairs listed as the flat views list them.
final class FilterViewsTests: XCTestCase {
    static func library() -> Library {
        var photos = [
            makePhoto("DCIM/fav-2024.jpg", (2024, 6, 15, 10)),
            makePhoto("DCIM/old.jpg", (2019, 12, 24, 10)),
            makePhoto("DCIM/Camera/shot.png", (2024, 3, 1, 9), screenshot: true),
            makePhoto("DCIM/Camera/clip.mov", (2024, 8, 2, 18)),
            makePhoto("trip/IMG_1.JPG", (2024, 7, 1, 12)),
            makePhoto("trip/IMG_1.MOV", (2024, 7, 1, 12)),
            makePhoto("raw/DSC_1.JPG", (2023, 5, 5, 5)),
            makePhoto("raw/DSC_1.NEF", (2023, 5, 5, 5)),
            makePhoto("raw/DSC_2.NEF", (2023, 5, 6, 5)),
        ]
        photos[0].camera = "Apple iPhone 15 Pro"
        photos[0].rating = 5
        photos[0].ratingSource = .xmp
        photos[0].isFavorite = true
        photos[1].camera = "Canon EOS R5"
        photos[1].rating = 2
        photos[1].ratingSource = .xmp
        photos[4].camera = "Apple iPhone 15 Pro"
        photos[4].isFavorite = true
        for k in [4, 5] { photos[k].liveIdentifier = 77 }
        for k in [7, 8] { photos[k].format = .raw }
        return LibraryViews.build(photos: photos, ViewSettings(emptyMtime: Timestamp(seconds: 0)))
    }

    /// Expression → the file names it lists, newest first.
    static let cases: [(String, [String])] = [
        ("any(images,not(screenshots))", ["clip.mov", "IMG_1.JPG", "fav-2024.jpg", "shot.png", "DSC_2.NEF", "DSC_1.JPG", "old.jpg"]),
        ("images+not-screenshots", ["clip.mov", "IMG_1.JPG", "fav-2024.jpg", "shot.png", "DSC_2.NEF", "DSC_1.JPG", "old.jpg"]),
        ("rating=4..", ["fav-2024.jpg"]),
        ("rating=..2", ["old.jpg"]),
        ("rating=2..5", ["fav-2024.jpg", "old.jpg"]),
        ("date=2024-07..", ["clip.mov", "IMG_1.JPG"]),
        ("date=..2019", ["old.jpg"]),
        ("year=2019..2023", ["DSC_2.NEF", "DSC_1.JPG", "old.jpg"]),
        ("format=png+videos", ["clip.mov", "shot.png"]),
        ("images", ["IMG_1.JPG", "fav-2024.jpg", "shot.png", "DSC_2.NEF", "DSC_1.JPG", "old.jpg"]),
        ("not(screenshots)", ["clip.mov", "IMG_1.JPG", "fav-2024.jpg", "DSC_2.NEF", "DSC_1.JPG", "old.jpg"]),
        ("videos", ["clip.mov"]),
        ("screenshots", ["shot.png"]),
        ("non-screenshots", ["IMG_1.JPG", "fav-2024.jpg", "DSC_2.NEF", "DSC_1.JPG", "old.jpg"]),
        ("favorites", ["IMG_1.JPG", "fav-2024.jpg"]),
        ("live-photos", ["IMG_1.JPG"]),
        ("raw", ["DSC_2.NEF", "DSC_1.JPG"]),
        ("rating>=4", ["fav-2024.jpg"]),
        ("rating<=2", ["old.jpg"]),
        ("format=png", ["shot.png"]),
        ("format=mov", ["clip.mov"]),
        ("camera=apple iphone 15 pro", ["IMG_1.JPG", "fav-2024.jpg"]),
        ("year=2024", ["clip.mov", "IMG_1.JPG", "fav-2024.jpg", "shot.png"]),
        ("year<2024", ["DSC_2.NEF", "DSC_1.JPG", "old.jpg"]),
        ("month=2024-06", ["fav-2024.jpg"]),
        ("month=12", ["old.jpg"]),
        ("day=2023-05-06", ["DSC_2.NEF"]),
        ("date=2024-03..2024-06", ["fav-2024.jpg", "shot.png"]),
        ("date>2024-06", ["clip.mov", "IMG_1.JPG"]),
        ("folder=DCIM", ["clip.mov", "fav-2024.jpg", "shot.png", "old.jpg"]),
        ("folder=DCIM%2FCamera", ["clip.mov", "shot.png"]),
        ("folder=DCI", []),
        ("all(favorites,year=2024,camera=Apple iPhone 15 Pro,folder=trip)", ["IMG_1.JPG"]),
    ]

    func testEachExpressionListsItsPhotosNewestFirst() throws {
        let scope = FilterScope(Self.library())
        for (written, expected) in Self.cases {
            let predicate = try FilterSyntax.parse(written).flatMap(FilterTerms.compile).get()
            let folder = scope.folder(named: written, predicate, emptyMtime: Timestamp(seconds: 0))
            XCTAssertEqual(folder.children.map(\.name), expected, written)
        }
    }

    /// A filter folder's entries are the flat views' files: the same photo indices, so the same
    /// inode slot as `by-date/`, and `mtime` the capture instant.
    func testEntriesAreTheFlatViewsOriginals() throws {
        let library = Self.library()
        let folder = FilterScope(library).folder(named: "images", try FilterSyntax.parse("images").flatMap(FilterTerms.compile).get(),
                                                 emptyMtime: Timestamp(seconds: 0))
        guard case .photos(let entries) = folder.entries else { return XCTFail("a folder of photos") }
        XCTAssertEqual(PhotoSlot.inodeSlot(entries.slot), PhotoSlot.byDate)
        for node in folder.children {
            guard case .file(_, .original(let i), let mtime) = node else { return XCTFail("\(node.name) is an original") }
            XCTAssertEqual(mtime, library.photos[i].captureInstant)
        }
        XCTAssertEqual(folder.mtime, library.photos.first { $0.fileName == "IMG_1.JPG" }?.captureInstant)
    }

    /// A chain narrows: `filter/A/B/` is A and B, in either order.
    func testAChainIsTheConjunctionOfItsComponents() throws {
        let scope = FilterScope(Self.library())
        let a = try FilterSyntax.parse("favorites").flatMap(FilterTerms.compile).get()
        let b = try FilterSyntax.parse("year=2024").flatMap(FilterTerms.compile).get()
        let ab = scope.members(FilterPredicate { a.test($0) && b.test($0) })
        XCTAssertEqual(ab, scope.members(try FilterSyntax.parse("all(favorites,year=2024)").flatMap(FilterTerms.compile).get()))
        XCTAssertEqual(ab.count, 2)
    }
}
