import AlbumCore
import XCTest

/// A sidecar's evidence through the one text the index and the packed records keep, and the
/// attributes a photo shows of it.
final class SidecarEvidenceTests: XCTestCase {
    func testTheEncodedTextGivesEveryFieldBack() {
        var s = SidecarEvidence(kind: .xmp, relativePath: "a\\b/c\nd.xmp")
        XCTAssertEqual(SidecarEvidence(encoded: s.encoded), s)
        s.xmpDateCreated = "2021-03-04T05:06:07+01:00"; s.xmpDateTimeOriginal = ""; s.xmpCreateDate = "x:y"
        s.takenTime = Int64.min; s.latitude = -0.000_001; s.longitude = 179.999_999; s.rating = 5; s.favorited = true
        s.keywords = ["Lyon", "a, b", "\\n", "line\nbreak", ""]; s.description = "k:v\n\\"
        XCTAssertEqual(SidecarEvidence(encoded: s.encoded), s)
        XCTAssertNil(SidecarEvidence(encoded: ""))
        XCTAssertNil(SidecarEvidence(encoded: "raw\na.jpg.xmp"), "an unknown kind")
        XCTAssertNil(SidecarEvidence(encoded: "xmp\na.xmp\nzz:1"), "an unknown field")
    }

    func testTheAttributesShowWhatTheSidecarSays() {
        var s = SidecarEvidence(kind: .takeout, relativePath: "Takeout/IMG_1.jpg.json")
        XCTAssertEqual(s.attributes, ["sidecar", "IMG_1.jpg.json"])
        s.rating = 4; s.favorited = false; s.keywords = ["Lyon", "Night"]; s.description = "Fête"
        XCTAssertEqual(s.attributes, ["sidecar", "IMG_1.jpg.json", "favorited", "no", "keywords", "Lyon, Night",
                                      "description", "Fête"])
    }
}
