@testable import AlbumCore
import XCTest

final class FavoriteRulesTests: XCTestCase {
    /// (xmp:Rating as written, EXIF Rating) → the rating and its source docs/rules.md says.
    static let ratings: [(xmp: String?, exif: Int?, rating: Int?, source: RatingSource)] = [
        ("5", nil, 5, .xmp),
        ("4", 2, 4, .xmp),  // XMP first
        (nil, 4, 4, .exif),
        ("0", 3, 3, .exif),  // 0 is "not rated": the EXIF one counts
        ("-1", 5, -1, .xmp),  // rejected
        (" 4.0 ", nil, 4, .xmp),  // a real, as the XMP specification types it
        ("3.5", nil, 3, .xmp),
        ("7", 2, 2, .exif),  // out of range: no rating
        ("four", nil, nil, .none),
        ("nan", nil, nil, .none),
        (nil, 0, nil, .none),
        (nil, 6, nil, .none),
        (nil, nil, nil, .none),
    ]

    func testRatingsAndTheirSources() {
        for row in Self.ratings {
            var e = PhotoEvidence()
            e.xmpRating = row.xmp
            e.exifRating = row.exif
            let got = FavoriteRules.rating(e)
            XCTAssertEqual(got?.rating, row.rating, "\(row)")
            XCTAssertEqual(got?.source ?? .none, row.source, "\(row)")
        }
    }

    /// An XMP sidecar's rating comes before the file's own (a 0 there is "not rated": the file's counts).
    func testASidecarsRatingComesFirst() {
        var e = PhotoEvidence()
        e.xmpRating = "2"
        e.exifRating = 1
        var sidecar = SidecarEvidence(kind: .xmp, relativePath: "a.jpg.xmp")
        sidecar.rating = 5
        e.sidecar = sidecar
        XCTAssertEqual(FavoriteRules.rating(e).map { [$0.rating, Int($0.source.rawValue)] }, [5, Int(RatingSource.sidecar.rawValue)])
        XCTAssertEqual(RatingSource.sidecar.name, "xmp-sidecar:Rating")
        e.sidecar?.rating = 0
        XCTAssertEqual(FavoriteRules.rating(e)?.source, .xmp)
        e.sidecar?.rating = 9
        XCTAssertEqual(FavoriteRules.rating(e)?.rating, 2, "out of range: no rating of the sidecar's")
    }

    func testThresholdAndFavouriteMark() {
        let rules = FavoriteRules()
        XCTAssertEqual(rules.threshold, 4)
        XCTAssertTrue(rules.isFavorite(rating: 4, favorited: nil))
        XCTAssertTrue(rules.isFavorite(rating: 5, favorited: false))
        XCTAssertFalse(rules.isFavorite(rating: 3, favorited: nil))
        XCTAssertFalse(rules.isFavorite(rating: nil, favorited: nil))
        XCTAssertFalse(rules.isFavorite(rating: -1, favorited: false))
        XCTAssertTrue(rules.isFavorite(rating: nil, favorited: true), "a favourite mark (Takeout's favorited) is enough")
        XCTAssertTrue(rules.isFavorite(rating: -1, favorited: true))
        XCTAssertTrue(FavoriteRules(threshold: 1).isFavorite(rating: 1, favorited: nil))
        XCTAssertFalse(FavoriteRules(threshold: 5).isFavorite(rating: 4, favorited: nil))
    }
}
