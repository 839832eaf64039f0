@testable import AlbumCore
import XCTest

final class EntryNamesTests: XCTestCase {
    func testSanitise() {
        XCTAssertEqual(EntryNames.sanitise("a/b"), "a_b")
        XCTAssertEqual(EntryNames.sanitise("a\0b"), "a_b")
        XCTAssertEqual(EntryNames.sanitise("."), "_.")
        XCTAssertEqual(EntryNames.sanitise(".."), "_..")
        XCTAssertEqual(EntryNames.sanitise(""), "_")
        let long = String(repeating: "é", count: 200) + ".jpg"
        let cut = EntryNames.sanitise(long)
        XCTAssertLessThanOrEqual(cut.utf8.count, 255)
        XCTAssertTrue(cut.hasSuffix(".jpg"))
        XCTAssertTrue(cut.hasPrefix("éé"))
    }

    func testCollisionsGetDeterministicSuffixes() {
        let wanted = [("IMG_1.JPG", "b/IMG_1.JPG"), ("IMG_1.JPG", "a/IMG_1.JPG"), ("IMG_2.JPG", "a/IMG_2.JPG")]
        let names = EntryNames.assign(wanted)
        XCTAssertEqual(names[1], "IMG_1.JPG", "the first source path keeps the plain name")
        XCTAssertEqual(names[0], "IMG_1~" + EntryNames.tag(for: "b/IMG_1.JPG") + ".JPG")
        XCTAssertEqual(names[2], "IMG_2.JPG")
        XCTAssertEqual(EntryNames.assign(wanted.reversed()).reversed(), names, "order of discovery does not matter")
        XCTAssertEqual(Set(names).count, 3)
    }

    func testSuffixNeverCollidesWithAnExistingName() {
        let clash = "IMG_1~" + EntryNames.tag(for: "b/IMG_1.JPG") + ".JPG"
        let names = EntryNames.assign([("IMG_1.JPG", "a/IMG_1.JPG"), ("IMG_1.JPG", "b/IMG_1.JPG"), (clash, "c/x")])
        XCTAssertEqual(Set(names).count, 3, "\(names)")
    }

    func testTagIsStable() {
        XCTAssertEqual(EntryNames.tag(for: "Trip/IMG_0001.JPG"), EntryNames.tag(for: "Trip/IMG_0001.JPG"))
        XCTAssertNotEqual(EntryNames.tag(for: "Trip/IMG_0001.JPG"), EntryNames.tag(for: "Trip/IMG_0002.JPG"))
        XCTAssertEqual(EntryNames.tag(for: "x").count, 6)
    }
}
