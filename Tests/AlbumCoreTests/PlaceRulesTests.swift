@testable import AlbumCore
import XCTest

/// Which position a photo's evidence gives (`PlaceRules`): the file's EXIF, else its sidecar's;
/// the sidecar's first for a camera RAW; a position that names no place passed over.
final class PlaceRulesTests: XCTestCase {
    func evidence(file: (Double, Double)?, sidecar: (Double, Double)?, kind: SidecarEvidence.Kind = .xmp) -> PhotoEvidence {
        var e = PhotoEvidence()
        e.gpsLatitude = file?.0
        e.gpsLongitude = file?.1
        if let sidecar {
            var s = SidecarEvidence(kind: kind, relativePath: "a.xmp")
            s.latitude = sidecar.0
            s.longitude = sidecar.1
            e.sidecar = s
        }
        return e
    }

    func testTheFileFirstButForARaw() {
        let both = evidence(file: (45.764, 4.8357), sidecar: (35.0116, 135.7681))
        XCTAssertEqual(PlaceRules.position(both, format: .jpeg), PlacePosition(latitude: 45.764, longitude: 4.8357))
        XCTAssertEqual(PlaceRules.position(both, format: .heif), PlacePosition(latitude: 45.764, longitude: 4.8357))
        XCTAssertEqual(PlaceRules.position(both, format: .raw), PlacePosition(latitude: 35.0116, longitude: 135.7681), "a RAW's sidecar wins")
        let takeout = evidence(file: nil, sidecar: (-33.8568, 151.2153), kind: .takeout)
        XCTAssertEqual(PlaceRules.position(takeout, format: .jpeg), PlacePosition(latitude: -33.8568, longitude: 151.2153))
        XCTAssertNil(PlaceRules.position(PhotoEvidence(), format: .jpeg))
    }

    func testAPositionThatNamesNoPlaceIsPassedOver() {
        XCTAssertEqual(PlaceRules.position(evidence(file: (0, 0), sidecar: (35.0116, 135.7681)), format: .jpeg),
                       PlacePosition(latitude: 35.0116, longitude: 135.7681), "null island is no place")
        XCTAssertEqual(PlaceRules.position(evidence(file: (.nan, 2), sidecar: nil), format: .jpeg), nil)
        XCTAssertEqual(PlaceRules.position(evidence(file: (45, 400), sidecar: (91, 0)), format: .jpeg), nil)
        XCTAssertEqual(PlaceRules.position(evidence(file: (45.764, 4.8357), sidecar: (0, 0)), format: .raw),
                       PlacePosition(latitude: 45.764, longitude: 4.8357))
    }

    /// The gazetteer is asked only for a photo with a position.
    func testTheGazetteerIsAskedOnlyWithAPosition() {
        var asked = 0
        func table() -> Gazetteer? {
            asked += 1
            return Gazetteer([.init(name: "Lyon", region: "R", country: "France", zone: "Europe/Paris", latitude: 45.75, longitude: 4.85)])
        }
        XCTAssertNil(PlaceRules.city(of: nil, in: table()))
        XCTAssertEqual(asked, 0)
        XCTAssertEqual(PlaceRules.city(of: PlacePosition(latitude: 45.764, longitude: 4.8357), in: table()), 0)
        XCTAssertEqual(asked, 1)
    }
}
