@testable import AlbumCore
import XCTest

/// The `filter/` grammar: what each component parses to, its canonical text, and what a wrong
/// one is told (docs/filters.md).
final class FilterExpressionTests: XCTestCase {
    typealias E = FilterExpression
    static func t(_ name: String, _ op: FilterOperator? = nil, _ value: String = "") -> E { .term(FilterCondition(name: name, op, value)) }

    /// Written → parsed → canonical text.
    static let parses: [(written: String, parsed: E, canonical: String)] = [
        ("images", t("images"), "images"),
        ("Favorites", t("favorites"), "favorites"),
        ("any(images,not(screenshots))", .any([t("images"), .not(t("screenshots"))]), "any(images,not(screenshots))"),
        ("any( images , not( screenshots ) )", .any([t("images"), .not(t("screenshots"))]), "any(images,not(screenshots))"),
        ("rating>=4", t("rating", .atLeast, "4"), "rating>=4"),
        ("rating<2", t("rating", .below, "2"), "rating<2"),
        ("camera=Apple iPhone 15 Pro", t("camera", .equal, "Apple iPhone 15 Pro"), "camera=Apple iPhone 15 Pro"),
        // A component that is one term keeps `,` and parentheses in its value; printed escaped.
        ("camera=Foo (Bar), Inc.", t("camera", .equal, "Foo (Bar), Inc."), "camera=Foo %28Bar%29%2C Inc."),
        ("all(camera=Foo %28Bar%29,year=2024)", .all([t("camera", .equal, "Foo (Bar)"), t("year", .equal, "2024")]),
         "all(camera=Foo %28Bar%29,year=2024)"),
        ("folder=DCIM%2FCamera", t("folder", .equal, "DCIM/Camera"), "folder=DCIM%2FCamera"),
        ("date=2024-06..2024-08", t("date", .equal, "2024-06..2024-08"), "date=2024-06..2024-08"),
        ("not(any(videos,raw))", .not(.any([t("videos"), t("raw")])), "not(any(videos,raw))"),
        // The forms a shell takes unquoted: `+` is any, `not-` is not.
        ("images+not-screenshots", .any([t("images"), .not(t("screenshots"))]), "any(images,not(screenshots))"),
        ("Not-Any(videos,raw)", .not(.any([t("videos"), t("raw")])), "not(any(videos,raw))"),
        ("format=heif+raw+year=2020", .any([t("format", .equal, "heif"), t("raw"), t("year", .equal, "2020")]),
         "any(format=heif,raw,year=2020)"),
        ("camera=A%2BB", t("camera", .equal, "A+B"), "camera=A%2BB"),
        ("rating=4..", t("rating", .equal, "4.."), "rating=4.."),
    ]

    func testEachComponentParsesAndPrintsBackToItself() throws {
        for (written, parsed, canonical) in Self.parses {
            XCTAssertEqual(try FilterSyntax.parse(written).get(), parsed, written)
            XCTAssertEqual(parsed.description, canonical, written)
            XCTAssertEqual(try FilterSyntax.parse(canonical).get(), parsed, "the canonical text of \(written) parses back")
        }
    }

    /// Written → the error's message (syntax and terms alike).
    static let errors: [(written: String, message: String)] = [
        ("", "an expression is missing at the end"),
        ("any(images", "any( is not closed: a \")\" is missing"),
        ("any(images,)", "a term is missing before \")\""),
        ("not(images,videos)", "not(…) takes one expression, not 2"),
        ("images)", "unexpected \")\" after \"images\""),
        ("or(images,videos)", "no function \"or\": any(…), all(…) and not(…) combine terms (did you mean \"any\"?)"),
        ("favourites", "no term \"favourites\" (did you mean \"favorites\"?)"),
        ("screenshot", "no term \"screenshot\" (did you mean \"screenshots\"?)"),
        ("vidoes", "no term \"vidoes\" (did you mean \"videos\"?)"),
        ("photos", "no term \"photos\" (did you mean \"images\"?)"),
        ("zebra", "no term \"zebra\""),
        ("2024", "no term \"2024\" (did you mean \"year=2024\"?)"),
        ("2024-06", "no term \"2024-06\" (did you mean \"month=2024-06\"?)"),
        ("2024-06-15", "no term \"2024-06-15\" (did you mean \"day=2024-06-15\"?)"),
        ("any(images,not(screenshoots))", "no term \"screenshoots\" (did you mean \"screenshots\"?)"),
        ("rating>=9", "rating takes a number from -1 to 5, or a range such as 4.., not \"9\""),
        ("rating=..", "rating takes a number from -1 to 5, or a range such as 4.., not \"..\""),
        ("!screenshots", "\"!\" is no operator: write not-X or not(X)"),
        ("images+", "an expression is missing at the end"),
        ("not-", "no term \"not-\""),
        ("rating", "\"rating\" needs a value, as in \"rating=…\""),
        ("images=1", "\"images\" takes no value (\"images=…\" written)"),
        ("camera>=Canon", "\"camera\" takes \"=\", not \">=\""),
        ("format=jepg", "no format \"jepg\" (formats: jpeg, png, heif, video, webp, gif, tiff, jxl, raw) (did you mean \"jpeg\"?)"),
        ("year=24", "\"24\" is no date: a year, as in \"year=2024\""),
        ("day=2024-13-01", "\"2024-13-01\" is no date: a day, as in \"day=2024-06-15\""),
        ("city=", "city takes a places/ folder's name"),
    ]

    func testEachWrongComponentSaysWhatIsWrongAndWhatWasMeant() {
        for (written, message) in Self.errors {
            switch FilterSyntax.parse(written).flatMap(FilterTerms.compile) {
            case .success: XCTFail("\(written) was taken")
            case .failure(let e): XCTAssertEqual(e.message, message, written)
            }
        }
    }

    func testDidYouMeanStaysQuietForNamesFarFromEveryTerm() {
        let names = FilterTerms.all.map(\.name)
        XCTAssertEqual(FilterSuggestions.suggestion("favourites", among: names), "favorites")
        XCTAssertEqual(FilterSuggestions.suggestion("non-screenshot", among: names), "non-screenshots")
        XCTAssertEqual(FilterSuggestions.suggestion("yaer", among: names), "year")
        XCTAssertNil(FilterSuggestions.suggestion("zebra", among: names))
        XCTAssertNil(FilterSuggestions.suggestion("ab", among: names), "short names need a close match")
    }

    /// Every term of the table is reachable by name, and no term shadows a combining word.
    func testTheTableOfTermsHasOneRowPerName() {
        let names = FilterTerms.all.map(\.name)
        XCTAssertEqual(Set(names).count, names.count)
        XCTAssertTrue(Set(names).isDisjoint(with: FilterSyntax.functions))
        for name in ["images", "videos", "screenshots", "non-screenshots", "favorites", "live-photos", "raw", "rating", "format",
                     "camera", "year", "month", "day", "date", "folder", "place", "country", "region", "city", "duplicates", "similar"]
            + MediaKind.allCases.map(\.name) {
            XCTAssertNotNil(FilterTerms.term(named: name)?.make, name)
        }
        XCTAssertTrue(FilterTerms.all.allSatisfy { $0.make != nil }, "every term's data is in this build")
    }
}
