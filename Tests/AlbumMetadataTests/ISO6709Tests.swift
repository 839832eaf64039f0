@testable import AlbumMetadata
import XCTest

/// QuickTime's ISO 6709 locations as iPhones write them, and what is no position.
final class ISO6709Tests: XCTestCase {
    func testDecimalDegreesWithOrWithoutAltitude() throws {
        let sf = try XCTUnwrap(ISO6709.position("+37.7793-122.4193+010.000/"))
        XCTAssertEqual(sf.latitude, 37.7793)
        XCTAssertEqual(sf.longitude, -122.4193)
        let sydney = try XCTUnwrap(ISO6709.position("-33.8568+151.2153/"))
        XCTAssertEqual(sydney.latitude, -33.8568)
        XCTAssertEqual(sydney.longitude, 151.2153)
        XCTAssertEqual(ISO6709.position("+35+135")?.longitude, 135, "whole degrees, no slash")
        XCTAssertEqual(ISO6709.position("+35.0116+135.7681-002.5/")?.latitude, 35.0116, "below sea level")
    }

    func testWhatIsNoPosition() {
        for text in [nil, "", "/", "35.0116+135.7681/", "+35.0116/", "+3501.16+13545.08/", "+350042+1354605/", "+35.0116+135.7681x",
                     "+35.0116+135.7681+10+20/", "+35..0+135.0/", "+٣٥.0+135.0/", "++35.0+135.0/"] {
            XCTAssertNil(ISO6709.position(text), text ?? "nil")
        }
    }
}
