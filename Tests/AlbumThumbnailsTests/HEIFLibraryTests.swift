import AlbumCore
import AlbumSystem
import AlbumMetadata
import AlbumSample
@testable import AlbumThumbnails
import CTurboJPEG
import Foundation
import Synchronization
import XCTest

final class HEIFLibraryTests: XCTestCase {
    /// The mount warns of a libheif older than 1.19 (bookworm's 1.15 refuses recent iPhones'
    /// HEICs); the one this machine loads (from bookworm-backports) is recent enough.
    func testTheLibheifVersionCheck() throws {
        XCTAssertFalse(HEIFLibrary.isRecentEnough("1.15.1"))
        XCTAssertFalse(HEIFLibrary.isRecentEnough("0.99"))
        XCTAssertTrue(HEIFLibrary.isRecentEnough("1.19.7"))
        XCTAssertTrue(HEIFLibrary.isRecentEnough("1.20.0"))
        XCTAssertTrue(HEIFLibrary.isRecentEnough("2.0"))
        let loaded = try XCTUnwrap(HEIFLibrary.version)
        XCTAssertTrue(HEIFLibrary.isRecentEnough(loaded), loaded)
        XCTAssertNil(HEIFLibrary.versionWarning(installHint: ""))
    }
}
