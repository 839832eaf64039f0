@testable import AlbumMetadata
import XCTest

/// Which file of a folder is a photo's sidecar: every name form XMP writers and Google Takeout use.
final class SidecarNamesTests: XCTestCase {
    func testEachPhotoFindsItsSidecarByEveryNameForm() {
        // (photo, the folder's other files, the sidecar expected)
        let long = "Screenshot_20190704-183000_Some Long App Name"  // 46 characters
        let table: [(photo: String, others: [String], expected: String?)] = [
            ("IMG_1.JPG", ["IMG_1.JPG.xmp"], "IMG_1.JPG.xmp"),
            ("IMG_1.JPG", ["IMG_1.xmp"], "IMG_1.xmp"),
            ("IMG_1.JPG", ["IMG_1.XMP"], "IMG_1.XMP"),
            ("IMG_1.JPG", ["IMG_1.JPG.Xmp", "IMG_1.xmp"], "IMG_1.JPG.Xmp"),
            ("IMG_1.jpg", ["IMG_1.jpg.json"], "IMG_1.jpg.json"),
            ("IMG_1.jpg", ["IMG_1.json"], "IMG_1.json"),
            ("IMG_1.jpg", ["IMG_1.jpg.supplemental-metadata.json", "IMG_1.jpg.json"], "IMG_1.jpg.supplemental-metadata.json"),
            ("IMG_1(1).jpg", ["IMG_1.jpg(1).json", "IMG_1.jpg.json"], "IMG_1.jpg(1).json"),
            ("IMG_1(2).jpg", ["IMG_1.jpg.supplemental-metadata(2).json"], "IMG_1.jpg.supplemental-metadata(2).json"),
            ("IMG_1-edited.jpg", ["IMG_1.jpg.json"], "IMG_1.jpg.json"),
            ("IMG_1-bearbeitet.jpg", ["IMG_1.jpg.supplemental-metadata.json"], "IMG_1.jpg.supplemental-metadata.json"),
            ("IMG_1-edited.jpg", ["IMG_1-edited.jpg.json", "IMG_1.jpg.json"], "IMG_1-edited.jpg.json"),
            // Takeout cuts a JSON name to 51 characters, `.json` included.
            (long + ".jpg", [long + ".json"], long + ".json"),
            (long + ".jpg", [long + ".jpg.json"], long + ".jpg.json"),
            ("PXL_20230101_101010123.MP.jpg", ["PXL_20230101_101010123.MP.jpg.supplemental-met.json"],
             "PXL_20230101_101010123.MP.jpg.supplemental-met.json"),
            ("IMG_1.jpg", ["IMG_2.jpg.json", "IMG_1.jpg.txt", "IMG_10.xmp", "IMG_1.jpg(1).json"], nil),
            ("IMG_1.jpg", [], nil),
        ]
        for row in table {
            let folder = FolderSidecars(names: [row.photo] + row.others)
            XCTAssertEqual(folder.sidecar(of: row.photo)?.name, row.expected, "\(row.photo) among \(row.others)")
        }
    }

    func testTheKindFollowsTheName() {
        let folder = FolderSidecars(names: ["a.jpg", "a.jpg.json", "b.png", "b.png.xmp"])
        XCTAssertEqual(folder.sidecar(of: "a.jpg")?.kind, .takeout)
        XCTAssertEqual(folder.sidecar(of: "b.png")?.kind, .xmp)
        XCTAssertTrue(FolderSidecars(names: ["a.jpg", "b.png"]).isEmpty)
    }

    func testTakeoutsCutNamesHave51CharactersAtMost() {
        let photo = String(repeating: "x", count: 60) + ".jpg"
        let names = FolderSidecars.takeoutNames(for: photo)
        XCTAssertTrue(names.contains(String(repeating: "x", count: 46) + ".json"), "\(names)")
        XCTAssertEqual(names.filter { $0.count <= 51 }.count, names.count - 3, "the uncut forms are the only longer ones: \(names)")
        XCTAssertEqual(FolderSidecars.copyNumber("a(12).jpg").plain, "a.jpg")
        XCTAssertEqual(FolderSidecars.copyNumber("a(12).jpg").copy, "(12)")
        XCTAssertEqual(FolderSidecars.copyNumber("(1).jpg").copy, "", "a name that is only a number is no copy")
        XCTAssertEqual(FolderSidecars.copyNumber("a(x).jpg").copy, "")
    }

    func testWhichNamesMayBeSidecars() {
        XCTAssertTrue(FolderSidecars.maySidecar("a.XMP"))
        XCTAssertTrue(FolderSidecars.maySidecar("a.jpg.json"))
        XCTAssertFalse(FolderSidecars.maySidecar("a.xmpx"))
        XCTAssertFalse(FolderSidecars.maySidecar("xmp"))
    }
}
