import AlbumCore
@testable import AlbumThumbnails
import XCTest

/// `Thumb::MTime` as albumfs writes and reads it back.
final class DesktopThumbnailsTests: XCTestCase {
    /// A thumbnail is current only for exactly its `Thumb::MTime` text (read to the end of its
    /// chunk, whatever bytes its CRC holds), never for a prefix or a longer one.
    func testAThumbnailIsCurrentForItsExactMTime() throws {
        let image = RGBImage(width: 2, height: 2, pixels: [UInt8](repeating: 128, count: 12))
        for mtime in ["1796472036", "1796472036.926327"] {
            let png = try PNGWriter.encode(image, text: [("Thumb::URI", "file:///a.jpg"), ("Thumb::MTime", mtime), ("Software", "albumfs")])
            XCTAssertTrue(DesktopThumbnails.isCurrent(png, mtime: mtime))
            XCTAssertFalse(DesktopThumbnails.isCurrent(png, mtime: "1796472036.926328"))
            XCTAssertFalse(DesktopThumbnails.isCurrent(png, mtime: "179647203"))
        }
        XCTAssertFalse(DesktopThumbnails.isCurrent(nil, mtime: "1"))
    }
}
