@testable import AlbumCore
import XCTest

/// RAW+JPEG pairs (docs/rules.md): same folder, same name but for the extension, captured
/// within 2 s; both in `by-date/`, the JPEG alone in the flat views.
final class RawPairsTests: XCTestCase {
    func raw(_ path: String, _ iso: (Int, Int, Int, Int), second: Int = 0) -> Photo {
        var p = makePhoto(path, iso, second: second)
        p.format = .raw
        return p
    }

    func heif(_ path: String, _ iso: (Int, Int, Int, Int), second: Int = 0) -> Photo {
        var p = makePhoto(path, iso, second: second)
        p.format = .heif
        return p
    }

    func testTheRuleNameFolderAndTwoSeconds() {
        let photos = [
            raw("c/DSC_0001.NEF", (2024, 5, 1, 10)), makePhoto("c/DSC_0001.JPG", (2024, 5, 1, 10), second: 1),      // 0, 1: a pair
            raw("c/DSC_0002.NEF", (2024, 5, 1, 10)), makePhoto("c/DSC_0002.jpg", (2024, 5, 1, 10), second: 3),      // 3 s apart
            raw("c/DSC_0003.NEF", (2024, 5, 1, 10)), makePhoto("d/DSC_0003.jpg", (2024, 5, 1, 10)),                  // other folder
            raw("c/DSC_0004.NEF", (2024, 5, 1, 10)), makePhoto("c/DSC_0004-edit.jpg", (2024, 5, 1, 10)),             // other name
            raw("c/IMG_5.dng", (2024, 5, 1, 11)), heif("c/img_5.HEIC", (2024, 5, 1, 11), second: 2),                 // 8, 9: a pair, any case
            raw("c/P1.ORF", (2024, 5, 1, 12)), makePhoto("c/P1.png", (2024, 5, 1, 12)),                              // a PNG is no partner
            makePhoto("c/IMG_6.jpg", (2024, 5, 1, 12)), makePhoto("c/IMG_6.jpeg", (2024, 5, 1, 12)),                 // no RAW at all
        ]
        XCTAssertEqual(RawPairs.partners(photos), [0: 1, 1: 0, 8: 9, 9: 8])
        // Whatever order the photos come in, the same pairs.
        let reversed = Array(photos.reversed())
        let n = Int32(photos.count - 1)
        XCTAssertEqual(RawPairs.partners(reversed), [n - 0: n - 1, n - 1: n - 0, n - 8: n - 9, n - 9: n - 8])
        // Two JPEGs of one stem (`.jpg`, `.jpeg`): the RAW takes one, the first by path.
        let two = [raw("x/A.CR3", (2024, 1, 1, 1)), makePhoto("x/A.jpg", (2024, 1, 1, 1)), makePhoto("x/A.jpeg", (2024, 1, 1, 1))]
        XCTAssertEqual(RawPairs.partners(two), [0: 2, 2: 0])
    }

    func testAPairIsSideBySideInByDateAndOnlyTheJPEGIsInTheFlatViews() throws {
        let photos = [raw("c/DSC_0001.NEF", (2024, 5, 1, 10)), makePhoto("c/DSC_0001.JPG", (2024, 5, 1, 10)),
                      raw("c/DSC_0009.NEF", (2024, 5, 1, 9))]
        let library = LibraryViews.build(photos: photos, ViewSettings(emptyMtime: Timestamp(seconds: 0)))
        XCTAssertEqual(library.rawPartners, [0: 1, 1: 0])
        guard case .folder(let dates)? = library.root.child(named: "by-date"), case .folder(let year)? = dates.child(named: "2024"),
              case .folder(let month)? = year.child(named: "2024-05"), case .folder(let day)? = month.child(named: "2024-05-01") else {
            return XCTFail("no 2024-05-01")
        }
        XCTAssertEqual(day.children.map(\.name), ["DSC_0001.JPG", "DSC_0001.NEF", "DSC_0009.NEF"])
        guard case .folder(let flat)? = library.root.child(named: "non-screenshots") else { return XCTFail("no non-screenshots") }
        XCTAssertEqual(flat.children.map(\.name), ["DSC_0001.JPG", "DSC_0009.NEF"], "a lone RAW is a photo of its own")
        // A views snapshot keeps no pairs: a library made of its photos and tree finds them again.
        XCTAssertEqual(Library(photos: photos, root: library.root).rawPartners, library.rawPartners)
    }

    /// A JPEG added beside a RAW already shown alone takes the RAW out of the flat views: left to
    /// `build`. A pair added at once is merged as `build` makes it.
    func testAJPEGAddedBesideAShownRawIsLeftToBuild() throws {
        let filler = (0..<100).map { makePhoto("f/P\($0).jpg", (2023, 1, 1, 10)) }
        let lone = filler + [raw("c/DSC_0001.NEF", (2024, 5, 1, 10))]
        let shown = LibraryViews.build(photos: lone, ViewSettings(emptyMtime: Timestamp(seconds: 0)))
        XCTAssertNil(LibraryViews.updated(shown, photos: lone + [makePhoto("c/DSC_0001.JPG", (2024, 5, 1, 10))],
                                          ViewSettings(emptyMtime: Timestamp(seconds: 0))))
        let pair = [raw("c/DSC_0002.NEF", (2024, 5, 2, 10)), makePhoto("c/DSC_0002.JPG", (2024, 5, 2, 10))]
        let made = try XCTUnwrap(LibraryViews.updated(shown, photos: lone + pair, ViewSettings(emptyMtime: Timestamp(seconds: 0))))
        let built = LibraryViews.build(photos: lone + pair, ViewSettings(emptyMtime: Timestamp(seconds: 0)))
        XCTAssertEqual(made.rawPartners, built.rawPartners)
        guard case .photos(let entries)? = made.root.subfolders.first(where: { $0.name == "non-screenshots" })?.entries else { return XCTFail() }
        let names = entries.members.map { entries.name(ofPhoto: Int($0)) }
        XCTAssertTrue(names.contains("DSC_0002.JPG"))
        XCTAssertFalse(names.contains("DSC_0002.NEF"))
        XCTAssertTrue(names.contains("DSC_0001.NEF"))
    }
}
