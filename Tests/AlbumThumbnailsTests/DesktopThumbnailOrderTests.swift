@testable import AlbumThumbnails
import XCTest

/// The order a folder's desktop thumbnails are written in: the file managers' default sort, so
/// that the icons of the first window are there first.
final class DesktopThumbnailOrderTests: XCTestCase {
    func testNamesSortWithoutCaseAndDigitsByValue() {
        let names = ["IMG_10.jpg", "base.jpg", "IMG_2.jpg", "img_3.JPG", "IMG_0001.jpg", "Zebra.png", "IMG_2a.jpg"]
        let sorted = FileManagerOrder.sorted(Array(names.indices)) { names[$0] }.map(\.name)
        XCTAssertEqual(sorted, ["base.jpg", "IMG_0001.jpg", "IMG_2.jpg", "IMG_2a.jpg", "img_3.JPG", "IMG_10.jpg", "Zebra.png"])
    }
}
