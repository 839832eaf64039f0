@testable import AlbumCore
import XCTest

/// The nearest city to a GPS position: GeoNames' table as libgeonames holds it, and small tables
/// made for the edges of the grid (the antimeridian, the poles).
final class GazetteerTests: XCTestCase {
    func system() throws -> Gazetteer {
        try XCTUnwrap(Gazetteer.system, "libgeonames: \(Gazetteer.systemFailure ?? "?")")
    }

    func place(_ g: Gazetteer, _ latitude: Double, _ longitude: Double) -> String? {
        PlacePosition(latitude: latitude, longitude: longitude).flatMap { g.nearest($0) }.map {
            let c = g.city($0)
            return "\(c.name), \(c.region), \(c.country)"
        }
    }

    /// Known places → the city GeoNames puts nearest (checked against a walk of every city with
    /// libgeonames's own C API); the Eiffel Tower is nearer Neuilly-sur-Seine's centre than Paris's.
    func testKnownPositionsGiveTheirCity() throws {
        let g = try system()
        XCTAssertEqual(g.count, 24_361)
        XCTAssertEqual(place(g, 48.856613, 2.352222), "Paris, Île-de-France Region, France")
        XCTAssertEqual(place(g, 48.858167, 2.294500), "Neuilly-sur-Seine, Île-de-France Region, France")
        XCTAssertEqual(place(g, 35.0116, 135.7681), "Kyoto, Kyoto, Japan")
        XCTAssertEqual(place(g, 37.7793, -122.4193), "San Francisco, California, United States of America")
        XCTAssertEqual(place(g, -33.8568, 151.2153), "Sydney, New South Wales, Australia")
        XCTAssertEqual(place(g, -34.6037, -58.3816), "Buenos Aires, Buenos Aires F.D., Argentina")
        XCTAssertEqual(place(g, 78.2232, 15.6267), "Longyearbyen, Svalbard, Svalbard and Jan Mayen", "near the pole")
        XCTAssertEqual(place(g, -16.4332, 179.3645), "Labasa, Northern, Fiji", "beside the antimeridian")
        XCTAssertEqual(g.city(try XCTUnwrap(g.nearest(try XCTUnwrap(PlacePosition(latitude: 35.0116, longitude: 135.7681))))).zone, "Asia/Tokyo")
        XCTAssertNil(place(g, 40, -40), "mid-Atlantic: no city within 50 km")
        XCTAssertNil(place(g, 90, 0), "the North Pole")
        XCTAssertNil(place(g, -90, 123), "the South Pole")
    }

    /// The grid finds what a walk of every city finds, wherever the position: random positions,
    /// more of them near cities, the North Pole and the antimeridian, a reach wide enough that most find one.
    func testTheGridFindsWhatAWalkOfEveryCityFinds() throws {
        let g = try system()
        var seed: UInt64 = 0x9E0_5EED
        func unit() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53)
        }
        let cities = (0..<g.count).map { (latitude: Float(g.city($0).latitude), longitude: Float(g.city($0).longitude)) }
        var found = 0
        for k in 0..<400 {
            // A degree or less from a city, near the North Pole, within a degree either side of
            // the antimeridian, or anywhere.
            let city = cities[Int(unit() * Double(cities.count))]
            let nearCity = (Double(city.latitude) + unit() * 2 - 1, Double(city.longitude) + unit() * 2 - 1)
            let nearAntimeridian: Double = (unit() < 0.5 ? 179 : -180) + unit()
            let latitude: Double = k % 4 == 0 ? 85 + unit() * 5 : k % 4 == 2 ? nearCity.0 : -90 + unit() * 180
            let longitude: Double = k % 4 == 1 ? nearAntimeridian : k % 4 == 2 ? nearCity.1 : -180 + unit() * 360
            guard let p = PlacePosition(latitude: latitude, longitude: longitude) else { continue }  // vacuous-ok: positions refused are testPositionsThatNameNoPlaceAreRefused's; `found` below counts those compared
            let reach = 300.0
            var walked: Int?, nearest = Double.infinity
            for (i, c) in cities.enumerated() {
                let d = Gazetteer.kilometres(p, c.latitude, c.longitude)
                if d <= reach && d < nearest { (walked, nearest) = (i, d) }
            }
            XCTAssertEqual(g.nearest(p, within: reach), walked, "\(p)")
            if walked != nil { found += 1 }
        }
        XCTAssertGreaterThan(found, 100, "the check must compare cities found, not only nils")
    }

    /// Positions that name no place: NaN, infinities, out of range, 0, 0.
    func testPositionsThatNameNoPlaceAreRefused() {
        for (lat, lon) in [(Double.nan, 2.0), (48.0, .nan), (.infinity, 2), (48, -.infinity), (90.5, 0), (-91, 0), (45, 180.1), (45, -200), (0, 0)] {
            XCTAssertNil(PlacePosition(latitude: lat, longitude: lon), "\(lat), \(lon)")
        }
        XCTAssertNotNil(PlacePosition(latitude: 0, longitude: 0.5), "on the equator is a place")
        XCTAssertNotNil(PlacePosition(latitude: -90, longitude: 180))
        XCTAssertEqual(PlacePosition(latitude: -33.8568, longitude: 151.2153)?.description, "-33.856800, 151.215300")
        XCTAssertEqual(PlacePosition(latitude: 0.0000004, longitude: -0.5)?.description, "0.000000, -0.500000")
    }

    /// Across the antimeridian a city 20 km away is found, whichever side each is on.
    func testTheAntimeridianIsNoEdge() {
        let g = Gazetteer([
            .init(name: "East", region: "R", country: "C", zone: "Pacific/Fiji", latitude: -16.5, longitude: 179.95),
            .init(name: "West", region: "R", country: "C", zone: "Pacific/Fiji", latitude: 10, longitude: -179.95),
        ])
        XCTAssertEqual(place(g, -16.5, -179.9), "East, R, C")
        XCTAssertEqual(place(g, -16.5, 180), "East, R, C")
        XCTAssertEqual(place(g, 10, 179.9), "West, R, C")
        XCTAssertNil(place(g, 10, 179), "100 km off")
    }

    /// Near a pole a degree of longitude is a few kilometres: a city 170 degrees of longitude
    /// away may be the nearest; the pole itself is a position like any.
    func testNearThePolesEveryLongitudeIsNear() {
        let g = Gazetteer([
            .init(name: "Top", region: "R", country: "C", zone: "UTC", latitude: 89.8, longitude: -170),
            .init(name: "Bottom", region: "R", country: "C", zone: "UTC", latitude: -89.9, longitude: 0),
        ])
        XCTAssertEqual(place(g, 89.8, 10), "Top, R, C", "44 km across the pole")
        XCTAssertEqual(place(g, 90, 0), "Top, R, C")
        XCTAssertEqual(place(g, -90, 77), "Bottom, R, C")
        XCTAssertNil(place(g, 89.0, 10), "too far")
    }

    /// Regions are their country's: one name in two countries is two regions; the ties go to the
    /// first city.
    func testRegionsAreTheirCountrysAndTiesGoToTheFirst() {
        let g = Gazetteer([
            .init(name: "A", region: "Georgia", country: "United States of America", zone: "America/New_York", latitude: 33, longitude: -84),
            .init(name: "B", region: "Georgia", country: "Georgia", zone: "Asia/Tbilisi", latitude: 41.7, longitude: 44.8),
            .init(name: "C", region: "X", country: "Y", zone: "UTC", latitude: 41.7, longitude: 44.8),
        ])
        XCTAssertEqual(g.city(1).country, "Georgia")
        XCTAssertEqual(g.city(0).region, g.city(1).region)
        XCTAssertEqual(place(g, 41.7, 44.8), "B, Georgia, Georgia")
    }
}
