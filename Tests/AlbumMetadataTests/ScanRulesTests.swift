import AlbumCore
@testable import AlbumMetadata
import XCTest

final class ScanRulesTests: XCTestCase {
    /// `shows` answers what `formats` holds, for every format, as made and after a change
    /// (`-o heif=off` takes HEIF out after the rules are made).
    func testShowsIsFormatsMembership() {
        XCTAssertEqual(Set(ImageFormat.allCases.map(\.bit)).count, ImageFormat.allCases.count, "a bit of its own each")
        var rules = ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 1_800_000_000)))
        XCTAssertEqual(ImageFormat.allCases.filter(rules.shows), ImageFormat.allCases.filter(ScanRules.defaultFormats.contains))
        rules.formats.remove(.heif)
        XCTAssertFalse(rules.shows(.heif))
        XCTAssertEqual(ImageFormat.allCases.filter(rules.shows), ImageFormat.allCases.filter { $0 != .heif })
        rules.formats = [.png]
        XCTAssertEqual(ImageFormat.allCases.filter(rules.shows), [.png])
    }
}
