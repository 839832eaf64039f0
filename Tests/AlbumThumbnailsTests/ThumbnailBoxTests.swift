import AlbumCore
import AlbumSystem
import AlbumMetadata
import AlbumSample
@testable import AlbumThumbnails
import CTurboJPEG
import Foundation
import Synchronization
import XCTest

final class ThumbnailBoxTests: XCTestCase {
    func testBoxParsing() {
        XCTAssertEqual(ThumbnailBox("200x200"), ThumbnailBox.default)
        XCTAssertEqual(ThumbnailBox("400x300")?.height, 300)
        for bad in ["200", "x200", "200x", "0x0", "15x200", "200x3000", "ax b", "+200x200", "200x200x1"] { XCTAssertNil(ThumbnailBox(bad), bad) }
    }
}
